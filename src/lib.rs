//! pfx-bake: an offline path tracer that bakes pfx-scene format 1 scenes into plate folders.
//!
//! The pipeline, one module per stage: [`scene`] (read, check, resolve) → [`assets`] (glTF,
//! HDR) → [`world`] (the render-ready scene) → [`accel`] (BVH) → [`integrator`] (path tracing
//! and the render loop, over [`materials`], [`lights`], [`camera`]) → [`film`] (samples into
//! pixels) → [`plates`] (the plate folder). [`bake`] runs the whole pipeline, [`watch`] runs it again
//! when an input changes (`--watch`). [`sampling`] (sampler, warps, distributions) and
//! [`color`] serve every stage and read none.
//!
//! Dependencies run one way: the film knows nothing of the integrator, the world nothing of
//! the integrator, cameras and lights nothing of materials.

pub mod accel;
pub mod assets;
pub mod bake;
pub mod camera;
pub mod color;
pub mod denoise;
pub mod film;
pub mod finish;
pub mod geometry;
pub mod integrator;
pub mod lights;
pub mod materials;
pub mod media;
pub mod plates;
pub mod report;
pub mod sampling;
pub mod scene;
pub mod watch;
pub mod world;
