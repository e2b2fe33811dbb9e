// The three.js classes the animation page (src/mechsim/viz/web/player.js) uses, bundled by build.mjs
// into one script that defines the global THREE.
export {
  AmbientLight, ArrowHelper, BufferAttribute, BufferGeometry, Color, CylinderGeometry, DirectionalLight,
  GridHelper, Group, HemisphereLight, Line, LineBasicMaterial, LineSegments, Matrix4, Mesh,
  MeshBasicMaterial, MeshStandardMaterial, PerspectiveCamera, Quaternion, Scene, SphereGeometry, Vector3,
  WebGLRenderer,
} from "three";
export { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
