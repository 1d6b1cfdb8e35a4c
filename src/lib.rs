//! pfx-bake: an offline path tracer that bakes pfx-scene format 1 scenes into plate folders.
//!
//! The pipeline, one module per stage: [`scene`] (read, check, resolve) → [`assets`] (glTF,
//! HDR) → [`world`] (the render-ready scene) → [`accel`] (BVH) → [`integrator`] (path tracing
//! over [`materials`], [`lights`], [`camera`]) → [`film`] (samples into pixels) → [`plates`]
//! (the plate folder). [`bake`] runs the whole pipeline.
#![warn(missing_docs)]

pub mod accel;
pub mod assets;
pub mod bake;
pub mod camera;
pub mod film;
pub mod geometry;
pub mod integrator;
pub mod lights;
pub mod materials;
pub mod plates;
pub mod report;
pub mod scene;
pub mod world;
