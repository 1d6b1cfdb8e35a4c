//! pfx-bake: an offline path tracer that bakes pfx-scene format 1 scenes into plate folders.
//!
//! The pipeline, one module per stage: [`scene`] (read, check, resolve) → [`assets`] (glTF,
//! HDR) → [`world`] (the render-ready scene) → [`accel`] (BVH) → [`integrator`] (path tracing
//! over [`materials`], [`lights`], [`camera`]) → [`film`] (samples into pixels) → [`plates`]
//! (the plate folder).
#![warn(missing_docs)]

pub mod geometry;
pub mod scene;
