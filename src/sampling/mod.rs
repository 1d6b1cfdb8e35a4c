//! Sample values and what turns them into directions and choices.
//!
//! - [`sampler`]: the bake's sampler, a pure function of (pixel, sample index, dimension, seed);
//! - [`trig`]: sine and cosine of sample angles, the same bits on every machine;
//! - [`warp`]: maps from the unit square to disks, hemispheres and spheres, with their densities;
//! - [`distribution`]: piecewise-constant 1-D and 2-D distributions (light choice, sky maps).
//!
//! Everything here is independent of the scene: cameras, materials, lights and the integrator
//! all draw from it, and it reads none of them.

pub mod distribution;
pub mod sampler;
#[cfg(test)]
pub(crate) mod testutil;
pub mod trig;
pub mod warp;

pub use distribution::{Distribution1D, Distribution2D};
pub use sampler::Sampler;
