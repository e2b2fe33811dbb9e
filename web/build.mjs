// Builds ../src/mechsim/viz/web/three.min.js from three_entry.js: `npm ci && npm run build` here.
// The bundle starts with three.js's MIT licence notice; Python users and CI need no Node.
import { build } from "esbuild";
import { readFileSync } from "node:fs";

const three = JSON.parse(readFileSync("node_modules/three/package.json", "utf8"));
const licence = readFileSync("node_modules/three/LICENSE", "utf8").trim();

await build({
  entryPoints: ["three_entry.js"],
  outfile: "../src/mechsim/viz/web/three.min.js",
  bundle: true,
  minify: true,
  format: "iife",
  globalName: "THREE",
  target: "es2020",
  legalComments: "none",
  banner: { js: `/*! three.js r${three.version.split(".")[1]} (npm three@${three.version}), the classes of three_entry.js\n${licence}\n*/` },
});
