// mechsim animation player: draws the scene written by mechsim/viz/animate.py (the JSON in
// #mechsim-scene) with three.js (the global THREE of three.min.js) and plays it back.
// window.mechsim exposes the frames for scripts and tests: seek(t), poses(), play(), pause().
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("mechsim-scene").textContent);
  const F = data.frames, names = data.bodies.map((b) => b.name);
  const decode = (text, Type) => new Type(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)).buffer);
  const poses = decode(data.poses, Float32Array);          // per frame and body: x y z qx qy qz qw
  const up = new THREE.Vector3(...data.up);
  const lo = new THREE.Vector3(...data.bounds[0]), hi = new THREE.Vector3(...data.bounds[1]);
  const size = Math.max(lo.distanceTo(hi), 1e-6), t = data.thickness;
  const layers = { frames: [], joints: [], coms: [], links: [], traces: [], grid: [] };

  // ------------------------------------------------------------------ renderer, camera, lights
  const canvas = document.getElementById("view");
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xf4f5f7);
  const camera = new THREE.PerspectiveCamera(35, 1, size / 1000, size * 100);
  camera.up.copy(up);
  const controls = new THREE.OrbitControls(camera, canvas);
  const sky = new THREE.HemisphereLight(0xffffff, 0x8090a0, 1.6);
  sky.position.copy(up);
  const key = new THREE.DirectionalLight(0xffffff, 1.6);
  key.position.set(1, 2, 3);
  camera.add(key);                                         // the key light follows the view
  scene.add(sky, camera);

  function resetView() {
    const centre = lo.clone().add(hi).multiplyScalar(0.5);
    camera.position.copy(centre).addScaledVector(new THREE.Vector3(...data.view), 1.7 * size);   // the bounding sphere fits the height
    controls.target.copy(centre);
    controls.update();
  }

  // ------------------------------------------------------------------ drawing helpers
  const material = (color) => new THREE.MeshStandardMaterial({ color, roughness: 0.55, metalness: 0.05 });
  function line(points, color) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(points.flat()), 3));
    return new THREE.Line(geometry, new THREE.LineBasicMaterial({ color }));
  }
  function ball(radius, color) {
    return new THREE.Mesh(new THREE.SphereGeometry(radius, 16, 12), new THREE.MeshBasicMaterial({ color }));
  }
  function triad(length, position, rotation) {        // x red, y green, z blue; rotation row-major
    const group = new THREE.Group();
    ["#d62728", "#2ca02c", "#1f77b4"].forEach((color, i) => {
      group.add(line([[0, 0, 0], [rotation[i] * length, rotation[3 + i] * length, rotation[6 + i] * length]], color));
    });
    group.position.set(...position);
    return group;
  }
  function add(layer, parent, object) {
    parent.add(object);
    layers[layer].push(object);
  }

  // ------------------------------------------------------------------ bodies
  const groups = data.bodies.map((body) => {
    const group = new THREE.Group();
    group.name = body.name;
    for (const m of body.meshes) {
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute("position", new THREE.BufferAttribute(decode(m.vertices, Float32Array), 3));
      geometry.setIndex(new THREE.BufferAttribute(decode(m.faces, m.index_bytes === 2 ? Uint16Array : Uint32Array), 1));
      geometry.computeVertexNormals();
      group.add(new THREE.Mesh(geometry, material(m.color)));
    }
    add("frames", group, triad(3 * t, [0, 0, 0], [1, 0, 0, 0, 1, 0, 0, 0, 1]));
    for (const f of body.frames) add("frames", group, triad(1.5 * t, f.position, f.rotation));
    const com = ball(0.4 * t, "#111111");
    com.position.set(...body.com);
    add("coms", group, com);
    scene.add(group);
    return group;
  });
  const bodyOf = (index) => (index < 0 ? scene : groups[index]);

  const axisColors = { R: "#d62728", P: "#1f77b4", H: "#9467bd" };
  for (const j of data.joints) {
    const point = new THREE.Vector3(...j.point);
    if (j.axis === null) {
      const centre = ball(0.6 * t, "#9467bd");
      centre.position.copy(point);
      add("joints", bodyOf(j.body), centre);
      continue;
    }
    const axis = new THREE.Vector3(...j.axis);
    const origin = point.clone().addScaledVector(axis, -3 * t);
    add("joints", bodyOf(j.body), new THREE.ArrowHelper(axis, origin, 6 * t, axisColors[j.type], 1.5 * t, 0.8 * t));
  }

  const linkColors = { "cut joint": "#e377c2", constraint: "#ff7f0e", spring: "#7f7f7f" };
  const links = data.links.map((link) => {
    const ends = [link.a, link.b].map(([index, point]) => {
      const marker = ball(0.5 * t, linkColors[link.kind]);
      marker.position.set(...point);
      add("links", bodyOf(index), marker);
      return marker;
    });
    const drawn = line([[0, 0, 0], [0, 0, 0]], linkColors[link.kind]);
    add("links", scene, drawn);
    return { ends, drawn };
  });

  const traceColors = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf"];
  const traces = data.traces.map((trace, k) => {
    const drawn = line([], traceColors[k % traceColors.length]);
    drawn.geometry.setAttribute("position", new THREE.BufferAttribute(decode(trace.points, Float32Array), 3));
    drawn.frustumCulled = false;
    add("traces", scene, drawn);
    return drawn;
  });

  // ------------------------------------------------------------------ ground grid and world axes
  const cell = niceStep(size / 8);
  const level = Math.min(...[0, 1, 2, 3, 4, 5, 6, 7].map((k) =>
    new THREE.Vector3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z).dot(up)));
  const cells = 2 * Math.ceil(0.75 * size / cell);
  const grid = new THREE.GridHelper(cells * cell, cells, 0x8a94a6, 0xc8cdd6);
  grid.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), up);
  grid.position.copy(lo.clone().add(hi).multiplyScalar(0.5).projectOnPlane(up)).addScaledVector(up, level - t);
  add("grid", scene, grid);
  add("grid", scene, triad(cell, [0, 0, 0], [1, 0, 0, 0, 1, 0, 0, 0, 1]));
  document.getElementById("units").textContent =
    `lengths in m, time in s · grid ${cell} m · world axes x red, y green, z blue`;

  function niceStep(x) {
    const p = Math.pow(10, Math.floor(Math.log10(x)));
    return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= x);
  }

  const gizmo = document.getElementById("gizmo").getContext("2d");
  function drawGizmo() {
    const toView = camera.quaternion.clone().invert();
    const axes = ["x", "y", "z"].map((label, i) => {
      const v = new THREE.Vector3(i === 0 ? 1 : 0, i === 1 ? 1 : 0, i === 2 ? 1 : 0).applyQuaternion(toView);
      return { label, v, color: ["#d62728", "#2ca02c", "#1f77b4"][i] };
    }).sort((a, b) => a.v.z - b.v.z);
    gizmo.clearRect(0, 0, 96, 96);
    gizmo.lineWidth = 2;
    gizmo.font = "bold 12px system-ui, sans-serif";
    for (const { label, v, color } of axes) {
      gizmo.strokeStyle = gizmo.fillStyle = color;
      gizmo.beginPath();
      gizmo.moveTo(48, 48);
      gizmo.lineTo(48 + 32 * v.x, 48 - 32 * v.y);
      gizmo.stroke();
      gizmo.fillText(label, 44 + 40 * v.x, 52 - 40 * v.y);
    }
  }

  // ------------------------------------------------------------------ playback
  let frame = 0, playing = false, clock = data.t0, last = null;
  const scrub = document.getElementById("scrub"), playButton = document.getElementById("play");
  const speed = document.getElementById("speed"), clockText = document.getElementById("clock");
  scrub.max = String(F - 1);
  const tEnd = data.t0 + (F - 1) / data.fps;
  const options = [...speed.options].map((o) => Number(o.value));   // a short run: slow motion, ~3 s long
  speed.value = String(options.filter((s) => s <= Math.min(1, (tEnd - data.t0) / 3)).pop() || options[0]);
  const frameAt = (time) => Math.min(F - 1, Math.max(0, Math.round((time - data.t0) * data.fps)));
  const world = new THREE.Vector3();

  function show(k) {
    frame = k;
    groups.forEach((group, b) => {
      const o = 7 * (k * groups.length + b);
      group.position.set(poses[o], poses[o + 1], poses[o + 2]);
      group.quaternion.set(poses[o + 3], poses[o + 4], poses[o + 5], poses[o + 6]);
      group.updateMatrixWorld(true);
    });
    for (const { ends, drawn } of links) {
      const position = drawn.geometry.attributes.position;
      ends.forEach((marker, i) => position.setXYZ(i, ...marker.getWorldPosition(world).toArray()));
      position.needsUpdate = true;
      drawn.geometry.computeBoundingSphere();
    }
    for (const drawn of traces) drawn.geometry.setDrawRange(0, k + 1);
    scrub.value = String(k);
    clockText.textContent = `t = ${(data.t0 + k / data.fps).toFixed(3)} s / ${tEnd.toFixed(3)} s`;
  }

  function setPlaying(on) {
    playing = on;
    last = null;
    playButton.textContent = on ? "Pause" : "Play";
  }

  function tick(now) {
    if (playing && last !== null) {
      clock += ((now - last) / 1000) * Number(speed.value);
      if (clock > tEnd) clock = data.t0;
      if (frameAt(clock) !== frame) show(frameAt(clock));
    }
    last = now;
    controls.update();
    renderer.render(scene, camera);
    drawGizmo();
    requestAnimationFrame(tick);
  }

  function fit() {
    const stage = canvas.parentElement;
    renderer.setSize(stage.clientWidth, stage.clientHeight, false);
    camera.aspect = stage.clientWidth / Math.max(1, stage.clientHeight);
    camera.updateProjectionMatrix();
  }

  playButton.addEventListener("click", () => setPlaying(!playing));
  scrub.addEventListener("input", () => {
    setPlaying(false);
    show(Number(scrub.value));
    clock = data.t0 + frame / data.fps;
  });
  document.getElementById("reset").addEventListener("click", resetView);
  document.querySelectorAll("[data-layer]").forEach((box) => {
    const apply = () => layers[box.dataset.layer].forEach((object) => { object.visible = box.checked; });
    box.addEventListener("change", apply);
    apply();
  });
  window.addEventListener("keydown", (event) => {
    if (event.code === "Space" && event.target.tagName !== "INPUT") {
      event.preventDefault();
      setPlaying(!playing);
    }
  });
  new ResizeObserver(fit).observe(canvas.parentElement);

  fit();
  resetView();
  show(0);
  setPlaying(true);
  requestAnimationFrame(tick);

  window.mechsim = {
    frames: F, fps: data.fps, t0: data.t0, bodies: names,
    seek(time) {                 // show the frame nearest to time (s), paused; returns that frame's time
      setPlaying(false);
      show(frameAt(time));
      clock = data.t0 + frame / data.fps;
      renderer.render(scene, camera);
      return clock;
    },
    poses() {                    // body name -> world position and rotation (row-major 3x3) as drawn
      const out = {};
      groups.forEach((group) => {
        const e = group.matrixWorld.elements;
        out[group.name] = { position: [e[12], e[13], e[14]],
                            rotation: [e[0], e[4], e[8], e[1], e[5], e[9], e[2], e[6], e[10]] };
      });
      return out;
    },
    play: () => setPlaying(true),
    pause: () => setPlaying(false),
  };
})();
