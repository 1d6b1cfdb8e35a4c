//! A whole bake: read the scene, build the world, render, write the plate folder.
//! `main.rs` maps the result to exit codes and prints; nothing here prints.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::denoise::Denoiser;
use crate::film::{self, Image};
use crate::finish::{self, Chain};
use crate::integrator::{self, Observer, PathTracer, Plan, Progress, Settings};
use crate::lights::Light;
use crate::plates::{self, PlateError, PlateImages};
use crate::scene::{self, Diagnostic};
use crate::world::{Capability, World};

/// What a bake is asked to do.
#[derive(Clone, Debug)]
pub struct BakeOptions {
    /// The scene file.
    pub scene: PathBuf,
    /// The plate folder; `None` takes the scene's `[plates] dir`, relative to the project root.
    pub out: Option<PathBuf>,
    /// Image size in pixels, width and height.
    pub size: [u32; 2],
    /// Rendering settings.
    pub settings: Settings,
    /// Adaptive sampling and the time limit (the default: every pixel takes `spp`).
    pub plan: Plan,
    /// Worker threads; `None` uses every core.
    pub threads: Option<usize>,
    /// Denoise the beauty with OIDN (docs/rendering.md, "Denoising"); needs
    /// `plan.auxiliaries`, which `bake` turns on.
    pub denoise: bool,
    /// Path guiding (docs/rendering.md, "Path guiding"): train a guide of the incident
    /// radiance before the render and sample rough vertices from it and the BSDF.
    pub guiding: bool,
}

/// What a finished bake did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BakeReport {
    /// The plate folder written.
    pub out: PathBuf,
    /// Files in it.
    pub files: Vec<String>,
    /// Wall-clock seconds of the whole bake.
    pub seconds: f64,
    /// Seconds spent rendering.
    pub render_seconds: f64,
    /// Camera samples taken.
    pub samples: u64,
    /// Rays traced.
    pub rays: u64,
    /// Samples per second while rendering.
    pub samples_per_second: f64,
    /// Rays per second while rendering.
    pub rays_per_second: f64,
    /// Diagnostic warnings of the reader.
    pub warnings: Vec<Diagnostic>,
    /// What the scene holds that this version does not draw.
    pub capabilities: Vec<Capability>,
    /// Notes of the asset loaders.
    pub asset_warnings: Vec<String>,
    /// Samples dropped for a non-finite value.
    pub dropped_samples: u64,
    /// Every file the bake read (the scene's files and the assets), as found on disk: what
    /// `--watch` watches.
    pub inputs: Vec<PathBuf>,
    /// With a preview: the frame file.
    pub preview_file: Option<PathBuf>,
    /// With a preview: the samples per pixel after each pass whose frame was written.
    pub preview_passes: Vec<u32>,
    /// With a preview: whether its frames show the denoised beauty (Open Image Denoise was
    /// found).
    pub preview_denoised: bool,
}

/// An artist's preview of a bake (`bake --preview`): the render goes in passes that double
/// the samples taken, and after each pass `file` is rewritten with the picture so far.
pub struct Preview<'a> {
    /// The frame file, a PNG encoded as the plate's `preview.png` is; `None` puts it beside
    /// the plate folder, named after it: `<plate folder>.preview.png` ([`frame_file`]).
    pub file: Option<PathBuf>,
    /// Asked between tiles and after each pass; `true` abandons the bake
    /// ([`BakeError::Interrupted`]): `--watch` uses it when an input changes.
    pub stop: &'a (dyn Fn() -> bool + Sync),
}

/// Why a bake stopped.
#[derive(Debug)]
pub enum BakeError {
    /// The input is wrong: every diagnostic found. Exit status 1.
    Input(Vec<Diagnostic>),
    /// The request is wrong (no output folder, bad option). Exit status 2.
    Usage(String),
    /// The plate folder could not be written. Exit status 3.
    Write(PlateError),
    /// A preview's `stop` ended the bake before its plate was written (`--watch` only, which
    /// starts the bake again). Exit status 4.
    Interrupted,
}

impl BakeError {
    /// The documented exit status.
    pub fn exit_code(&self) -> i32 {
        match self {
            BakeError::Input(_) => 1,
            BakeError::Usage(_) => 2,
            BakeError::Write(_) => 3,
            BakeError::Interrupted => 4,
        }
    }
}

impl fmt::Display for BakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BakeError::Input(d) => {
                for (i, d) in d.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{d}")?;
                }
                Ok(())
            }
            BakeError::Usage(m) => write!(f, "{m}"),
            BakeError::Write(e) => write!(f, "{e}"),
            BakeError::Interrupted => write!(f, "interrupted: an input changed"),
        }
    }
}

/// Bakes a scene into its plate folder.
pub fn bake(options: &BakeOptions, progress: &dyn Progress) -> Result<BakeReport, BakeError> {
    bake_previewed(options, None, progress)
}

/// Where a preview's frames go by default: beside the plate folder `out`, named after it
/// (`scenes/plates/room` → `scenes/plates/room.preview.png`), outside the folder so that it
/// stays atomic.
pub fn frame_file(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "plates".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!("{name}.preview.png"))
}

/// The plate images of a rendered image (`denoised` none yet); with `view`, the camera's
/// basis (right, up, forward), the data passes' normals in its camera space for the finish.
fn plate_images(
    image: &Image,
    far: f32,
    adaptive: bool,
    view: Option<[[f32; 3]; 3]>,
) -> PlateImages {
    PlateImages {
        width: image.width,
        height: image.height,
        beauty: image
            .radiance
            .iter()
            .zip(&image.coverage)
            .map(|(c, a)| [c.x, c.y, c.z, *a])
            .collect(),
        depth: image.depth.iter().map(|d| d.unwrap_or(far)).collect(),
        samples: adaptive.then(|| image.samples.clone()),
        denoised: None,
        view_normal: view.zip(image.passes.as_ref()).map(|([r, u, f], p)| {
            let world: Vec<[f32; 3]> = p.normal.iter().map(|n| n.to_array()).collect();
            finish::camera_normals(&world, r, u, f)
        }),
    }
}

/// The denoised images of `image` (which must have its auxiliaries) with `d`.
fn denoised_images(
    d: &Denoiser,
    image: &Image,
    threads: usize,
) -> Result<Option<plates::DenoisedImages>, BakeError> {
    let Some(aux) = &image.aux else {
        return Ok(None);
    };
    let out = d
        .denoise(image.width, image.height, &image.radiance, aux, threads)
        .map_err(|e| BakeError::Usage(format!("--denoise: {e}")))?;
    Ok(Some(plates::DenoisedImages {
        beauty: out
            .beauty
            .iter()
            .zip(&image.coverage)
            .map(|(c, a)| [c.x, c.y, c.z, *a])
            .collect(),
        albedo: out.albedo.iter().map(|c| c.to_array()).collect(),
        normal: out.normal.iter().map(|c| c.to_array()).collect(),
    }))
}

/// The preview's observer: writes a frame after each pass.
struct Frames<'a> {
    file: PathBuf,
    /// The scene's finish, so that frames look as `preview.png` will.
    chain: &'a Chain,
    stop: &'a (dyn Fn() -> bool + Sync),
    denoiser: Option<&'a Denoiser>,
    far: f32,
    adaptive: bool,
    /// The camera's basis when the finish reads the normal pass.
    view: Option<[[f32; 3]; 3]>,
    threads: usize,
    passes: Vec<u32>,
    error: Option<BakeError>,
}

impl Observer for Frames<'_> {
    fn pass(&mut self, image: &Image, spp: u32) -> bool {
        let mut images = plate_images(image, self.far, self.adaptive, self.view);
        if let Some(d) = self.denoiser {
            match denoised_images(d, image, self.threads) {
                Ok(dn) => images.denoised = dn,
                Err(e) => {
                    self.error = Some(e);
                    return false;
                }
            }
        }
        if let Err(e) = plates::write_preview_frame(&self.file, &images, self.chain) {
            self.error = Some(BakeError::Write(e));
            return false;
        }
        self.passes.push(spp);
        !(self.stop)()
    }

    fn cancelled(&self) -> bool {
        (self.stop)()
    }
}

/// [`bake`], with an artist's preview when `preview` is given: the same plate, byte for
/// byte, and a frame file rewritten after every pass (denoised when Open Image Denoise is
/// found, whether or not the plate is denoised).
pub fn bake_previewed(
    options: &BakeOptions,
    preview: Option<&Preview<'_>>,
    progress: &dyn Progress,
) -> Result<BakeReport, BakeError> {
    let start = Instant::now();
    let [w, h] = options.size;
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(BakeError::Usage(format!(
            "--size {w}x{h}: each side must be 1 to 16384 pixels"
        )));
    }
    if options.settings.spp == 0 {
        return Err(BakeError::Usage("--spp must be at least 1".into()));
    }
    check_plan(&options.plan, options.settings.spp)?;
    // Found before anything is rendered: a missing library is a usage error, not a lost bake.
    let denoiser = if options.denoise {
        Some(Denoiser::find().map_err(BakeError::Usage)?)
    } else {
        None
    };
    // A preview denoises its frames when it can; its absence only costs the frames' looks.
    let frame_denoiser = match (&denoiser, preview) {
        (Some(_), Some(_)) => None,
        (None, Some(_)) => Denoiser::find().ok(),
        _ => None,
    };
    let scene = scene::load(&options.scene).map_err(BakeError::Input)?;
    let out = match (&options.out, &scene.plates) {
        (Some(o), _) => o.clone(),
        (None, Some(p)) => scene.root.join(&p.dir),
        (None, None) => {
            return Err(BakeError::Usage(format!(
                "{}: the scene has no [plates] dir; give the plate folder with --out DIR",
                options.scene.display()
            )))
        }
    };
    // The finish is resolved before anything is rendered: a bad chain is an input error.
    let mut chain = finish::resolve(scene.finish.as_ref()).map_err(BakeError::Input)?;
    let world = World::build(&scene, options.size).map_err(|e| BakeError::Input(e.0))?;
    // A finish that reads the normal is given the data passes' (the first drawn surface's,
    // as the depth is), in the camera's space; the cel specular is lit by the sun when it
    // shines.
    let cam = &world.camera;
    let basis = [cam.right, cam.up, cam.forward].map(|v| v.to_array());
    let view = chain.reads_normal().then_some(basis);
    if let Some(sun) = world
        .sun
        .as_ref()
        .filter(|s| s.irradiance.max_element() > 0.0)
    {
        if let Some(toward) =
            finish::camera_direction(sun.toward.to_array(), basis[0], basis[1], basis[2])
        {
            chain.light_by_sun(toward);
        }
    }
    let plan = Plan {
        auxiliaries: options.plan.auxiliaries || options.denoise || frame_denoiser.is_some(),
        passes: options.plan.passes || view.is_some(),
        ..options.plan
    };
    let mut capabilities = world.capabilities.clone();
    capabilities.extend(chain.not_drawn.iter().map(|n| Capability {
        what: n.what.clone(),
        message: n.message.clone(),
        at: n.at.clone(),
        count: 1,
    }));

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.unwrap_or(0))
        .build()
        .map_err(|e| BakeError::Usage(format!("cannot start worker threads: {e}")))?;
    let render_start = Instant::now();
    let adaptive = !options.plan.is_uniform();
    let far = world.camera.far;
    let threads = options.threads.unwrap_or(0);
    let mut frames = preview.map(|p| Frames {
        chain: &chain,
        file: p.file.clone().unwrap_or_else(|| frame_file(&out)),
        stop: p.stop,
        denoiser: denoiser.as_ref().or(frame_denoiser.as_ref()),
        far,
        adaptive,
        view,
        threads,
        passes: Vec::new(),
        error: None,
    });
    let mut guiding_json = serde_json::Value::Bool(false);
    let rendered = pool.install(|| {
        let mut tracer = PathTracer::new(&world.trace, &world.camera, options.settings);
        if options.guiding {
            tracer = tracer.with_guiding(&world.camera);
            guiding_json = guide_json(tracer.guide());
        }
        let observer = frames.as_mut().map(|f| f as &mut dyn Observer);
        integrator::render_observed(&tracer, &world.camera, &plan, progress, observer)
    });
    let render_seconds = render_start.elapsed().as_secs_f64().max(1e-9);
    if let Some(e) = frames.as_mut().and_then(|f| f.error.take()) {
        return Err(e);
    }
    if rendered.interrupted {
        return Err(BakeError::Interrupted);
    }
    let image = &rendered.image;

    let mut images = plate_images(image, far, adaptive, view);
    let mut denoise_json = serde_json::Value::Null;
    if let Some(d) = &denoiser {
        let t0 = Instant::now();
        images.denoised = denoised_images(d, image, threads)?;
        denoise_json = json!({
            "denoiser": format!("Intel Open Image Denoise {}", d.version()),
            "library": d.library().to_string_lossy(),
            "filter": "RT, hdr, quality high; albedo and normal prefiltered, then cleanAux",
            "raw": plates::BEAUTY_FILE,
            "denoised": plates::DENOISED_FILE,
            "albedo": plates::ALBEDO_FILE,
            "normal": plates::NORMAL_FILE,
            "preview_from": plates::DENOISED_FILE,
            "seconds": t0.elapsed().as_secs_f64(),
        });
    }
    // Made for the finish alone, the data passes are not written.
    let passes = image
        .passes
        .as_ref()
        .filter(|_| options.plan.passes)
        .map(|p| pass_plates(&scene, &world, &image.samples, p));
    let samples: u64 = image.samples.iter().map(|&n| u64::from(n)).sum();
    let mut manifest = manifest(&scene, &world, options, samples);
    manifest["sampling"] = sampling_json(options, &rendered);
    manifest["denoise"] = denoise_json;
    manifest["guiding"] = guiding_json;
    manifest["not_drawn"] = json!(capabilities);
    let casters = caster_file(&scene, &world);
    manifest["casters"] = casters_json(&scene, &casters);
    let files = plates::write_plate_folder_casting(
        &out,
        &images,
        passes.as_ref(),
        Some(&casters),
        &chain,
        manifest,
    )
    .map_err(BakeError::Write)?;
    Ok(BakeReport {
        out,
        files,
        seconds: start.elapsed().as_secs_f64(),
        render_seconds,
        samples,
        rays: image.rays,
        samples_per_second: samples as f64 / render_seconds,
        rays_per_second: image.rays as f64 / render_seconds,
        warnings: scene.warnings.clone(),
        capabilities,
        asset_warnings: world.asset_warnings.clone(),
        dropped_samples: image.dropped,
        inputs: scene
            .files
            .iter()
            .chain(world.asset_files.iter())
            .map(|f| scene.root.join(f))
            .collect(),
        preview_denoised: frames.as_ref().is_some_and(|f| f.denoiser.is_some()),
        preview_file: frames.as_ref().map(|f| f.file.clone()),
        preview_passes: frames.map(|f| f.passes).unwrap_or_default(),
    })
}

/// The plate's data passes from the film's: object indices become pick ids and Cryptomatte
/// names (objects by name, materials by library key), light groups the names of their lights.
fn pass_plates(
    scene: &scene::Scene,
    world: &World,
    samples: &[u32],
    p: &film::PassImages,
) -> plates::PassPlates {
    use plates::cryptomatte::Cryptomatte;
    let arr = |v: &[glam::Vec3]| v.iter().map(|c| c.to_array()).collect();
    plates::PassPlates {
        normal: arr(&p.normal),
        albedo: arr(&p.albedo),
        roughness: p.roughness.clone(),
        pick: p
            .centre_object
            .iter()
            .map(|o| {
                o.and_then(|o| world.objects.get(o as usize))
                    .map_or(0, |o| o.pick)
            })
            .collect(),
        samples: samples.to_vec(),
        variance: arr(&p.variance),
        cryptomattes: vec![
            Cryptomatte {
                layer: "CryptoObject".into(),
                names: world.objects.iter().map(|o| o.key.clone()).collect(),
                pixels: p.objects.clone(),
            },
            Cryptomatte {
                layer: "CryptoMaterial".into(),
                names: world
                    .trace
                    .materials
                    .iter()
                    .map(|m| m.key.clone())
                    .collect(),
                pixels: p.materials.clone(),
            },
        ],
        light_groups: light_group_plates(scene, world, p),
    }
}

/// The light groups' plates: each group named by its light (the groups are the render's,
/// [`integrator::LightGroups::of`] the world's trace scene), `other` last.
fn light_group_plates(
    scene: &scene::Scene,
    world: &World,
    p: &film::PassImages,
) -> Vec<plates::LightGroupPlate> {
    use integrator::LightSource;
    let groups = integrator::LightGroups::of(&world.trace);
    let name = |s: &LightSource| -> (&'static str, String) {
        match *s {
            LightSource::Placed(k) => {
                let k = k as usize;
                match scene.lights.get(k) {
                    Some(l) => ("light", l.key.clone()),
                    None => (
                        "emitter",
                        scene
                            .emitters
                            .get(k - scene.lights.len())
                            .map_or_else(String::new, |e| e.key.clone()),
                    ),
                }
            }
            LightSource::Object(o) => (
                "object",
                world
                    .objects
                    .get(o as usize)
                    .map_or_else(String::new, |o| o.key.clone()),
            ),
            LightSource::Sun => ("sun", "sun".into()),
            LightSource::Sky => ("sky", "sky".into()),
        }
    };
    let table = |t: &str| match t {
        "light" => "[[light]]",
        "emitter" => "[[emitter]]",
        "object" => "[[object]]",
        "sun" => "[sun]",
        _ => "[sky]",
    };
    let names: Vec<(&str, String)> = groups.groups.iter().map(name).collect();
    let refs: Vec<(&str, &str)> = names.iter().map(|(t, n)| (*t, n.as_str())).collect();
    let keys = plates::light_group_keys(&refs);
    let capped: Vec<serde_json::Value> = groups
        .capped
        .iter()
        .map(|s| {
            let (t, n) = name(s);
            json!({ "table": table(t), "name": n })
        })
        .collect();
    let sources = names
        .iter()
        .map(|(t, n)| json!({ "table": table(t), "name": n }))
        .chain([json!({
            "other": "lights with shadow = false, surfaces whose emission a texture varies, and the shadow-casting lights past the cap",
            "cap": integrator::MAX_LIGHT_GROUPS,
            "capped": capped,
        })]);
    keys.into_iter()
        .chain([plates::OTHER_LIGHT_GROUP.to_owned()])
        .zip(sources)
        .zip(&p.light_groups)
        .map(|((key, source), img)| plates::LightGroupPlate {
            key,
            source,
            light: img.light.iter().map(|c| c.to_array()).collect(),
            shadow: img.shadow.clone(),
        })
        .collect()
}

/// The plate's caster file: the static objects' caster meshes when `[plates] casters` is
/// `"meshes"` (the default, also without `[plates]`), and every proxy of `[plates] proxies`
/// (docs/plates.md, "Casters and proxies").
fn caster_file(scene: &scene::Scene, world: &World) -> plates::CasterFile {
    let mode = scene
        .plates
        .as_ref()
        .map_or_else(Default::default, |p| p.casters);
    let node = |c: crate::world::casters::CasterMesh| {
        let o = &world.objects[c.object as usize];
        plates::CasterNode {
            object: o.key.clone(),
            id: o.id.clone(),
            pick: o.pick,
            proxy: match c.source {
                crate::world::casters::CasterSource::Proxy(k) => Some(k),
                crate::world::casters::CasterSource::Mesh => None,
            },
            positions: c.positions.iter().map(|p| p.to_array()).collect(),
            triangles: c.indices,
            cutout: c.cutout,
        }
    };
    plates::CasterFile {
        mode,
        meshes: if mode == scene::Casters::Meshes {
            world.caster_meshes().into_iter().map(node).collect()
        } else {
            Vec::new()
        },
        proxies: world
            .proxy_meshes(&scene.proxies)
            .into_iter()
            .map(node)
            .collect(),
    }
}

/// The manifest's `"casters"`: the mode, the proxies file and where the geometry went.
fn casters_json(scene: &scene::Scene, c: &plates::CasterFile) -> serde_json::Value {
    let proxies = scene.plates.as_ref().and_then(|p| p.proxies.as_ref());
    json!({
        "casters": plates::casters::mode_words(c.mode),
        "proxies": proxies.map(|p| p.to_string_lossy().replace('\\', "/")),
        "file": (!c.is_empty()).then_some(plates::CASTERS_FILE),
        "casters_scene": c.scenes().0,
        "proxies_scene": c.scenes().1,
        "pick": "a ray that meets a node of the proxies scene picks the object its extras name (extras.pick); the static objects' own pick ids per pixel are in passes.exr's pick layer",
    })
}

/// Refuses a plan the render loop cannot follow, as a usage error naming the option.
fn check_plan(plan: &Plan, spp: u32) -> Result<(), BakeError> {
    if let Some(e) = plan.noise_threshold {
        if !(e.is_finite() && e > 0.0) {
            return Err(BakeError::Usage(format!(
                "--noise-threshold {e}: must be a positive number (a relative error, e.g. 0.01)"
            )));
        }
    }
    if let Some(t) = plan.time_limit {
        if !(t.is_finite() && t > 0.0) {
            return Err(BakeError::Usage(format!(
                "--time-limit {t}: must be a positive number of seconds"
            )));
        }
    }
    if plan.min_spp != 0 {
        if plan.is_uniform() {
            return Err(BakeError::Usage(
                "--min-spp applies to adaptive or time-limited bakes: give --noise-threshold or --time-limit too".into(),
            ));
        }
        if plan.min_spp > spp {
            return Err(BakeError::Usage(format!(
                "--min-spp {} is more than --spp {spp}",
                plan.min_spp
            )));
        }
    }
    Ok(())
}

/// The manifest's record of the path guide (`--guiding`): what the training made of the
/// scene, or that it learnt nothing (the render was then unguided). No timing: the guide is
/// a function of the scene and camera, and so is this record, byte for byte.
fn guide_json(guide: Option<&integrator::Guide>) -> serde_json::Value {
    match guide {
        None => json!({ "on": true, "trained": false }),
        Some(g) => json!({
            "on": true,
            "trained": true,
            "method": "SD-tree (Mueller et al. 2017): spatial binary tree, directional quadtrees; one-sample mixture with the BSDF",
            "bsdf_share": g.training.bsdf_share,
            "min_roughness": g.training.min_roughness,
            "box_filter": g.training.filter,
            "last_round_only": g.training.last_round_only,
            "rounds": g.rounds,
            "training_paths": g.paths,
            "training_records": g.records,
            "directional_trees": g.leaves(),
            "directional_nodes": g.directional_nodes(),
        }),
    }
}

/// The manifest's record of how many samples the pixels took and why.
fn sampling_json(options: &BakeOptions, r: &integrator::Rendered) -> serde_json::Value {
    let plan = &options.plan;
    let n = &r.image.samples;
    let (lo, hi) = (
        n.iter().copied().min().unwrap_or(0),
        n.iter().copied().max().unwrap_or(0),
    );
    let mean = n.iter().map(|&v| v as f64).sum::<f64>() / n.len().max(1) as f64;
    json!({
        "spp": options.settings.spp,
        "adaptive": plan.noise_threshold.map(|e| json!({
            "noise_threshold": e,
            "min_spp": plan.pass_spp(options.settings.spp),
            "error": "standard error of the mean luminance over the mean (floored at 3e-4 W/(m^2 sr)), tested after every pass of min_spp samples",
        })),
        "time_limit_seconds": plan.time_limit,
        "stopped_by_time_limit": r.stopped_by_time_limit,
        "pass_spp": plan.pass_spp(options.settings.spp),
        "passes_spp": r.passes_spp,
        "samples_per_pixel": { "min": lo, "max": hi, "mean": mean },
        "per_pixel": if plan.is_uniform() { serde_json::Value::Null } else { json!(plates::SAMPLES_FILE) },
    })
}

fn sha256_of(path: &Path) -> String {
    match std::fs::read(path) {
        Ok(bytes) => Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
        Err(_) => String::from("unreadable"),
    }
}

fn mat(m: glam::Mat4) -> [[f32; 4]; 4] {
    m.to_cols_array_2d()
}

/// A sky's (or a mix layer's) kind and the parameters that kind reads, for the manifest.
fn sky_json(
    kind: scene::SkyKind,
    path: &Option<PathBuf>,
    intensity: f32,
    rotation_deg: f32,
    (turbidity, ground_albedo, ambient): (f32, [f32; 3], f32),
    prepare: &Option<scene::Prepare>,
    room: &Option<scene::Room>,
) -> serde_json::Value {
    use scene::SkyKind;
    match kind {
        SkyKind::Analytic => json!({
            "kind": "analytic",
            "turbidity": turbidity,
            "ground_albedo": ground_albedo,
            "ambient": ambient,
        }),
        SkyKind::Hdr => json!({
            "kind": "hdr",
            "path": path.as_ref().map(|p| p.to_string_lossy().replace('\\', "/")),
            "intensity": intensity,
            "rotation_deg": rotation_deg,
            "prepare": prepare.as_ref().map(|p| json!({
                "cap": p.cap, "balance": p.balance, "mean": p.mean,
            })),
        }),
        SkyKind::Room => json!({
            "kind": "room",
            "intensity": intensity,
            "rotation_deg": rotation_deg,
            "width": room.as_ref().map(|r| r.width),
            "lamps": room.as_ref().map_or(0, |r| r.lights.len()),
        }),
        SkyKind::Mix => json!({ "kind": "mix" }),
    }
}

fn manifest(
    scene: &scene::Scene,
    world: &World,
    options: &BakeOptions,
    samples: u64,
) -> serde_json::Value {
    let cam = &world.camera;
    let mut inputs = serde_json::Map::new();
    for f in scene.files.iter().chain(world.asset_files.iter()) {
        inputs.insert(
            f.to_string_lossy().replace('\\', "/"),
            json!(sha256_of(&scene.root.join(f))),
        );
    }
    let mut lights = Vec::new();
    // The sun as resolved (also when it is down and dark): where it is and what it gives.
    let sun = world.sun.map_or(serde_json::Value::Null, |s| {
        let peak = s.irradiance.max_element();
        let color = if peak > 0.0 {
            s.irradiance / peak
        } else {
            glam::Vec3::ZERO
        };
        json!({
            "model": if s.daylight { "daylight" } else { "authored" },
            "toward": s.toward.to_array(),
            "elevation_deg": s.toward.y.clamp(-1.0, 1.0).asin().to_degrees(),
            "color": color.to_array(),
            "irradiance": s.irradiance.to_array(),
            "angular_radius_deg": s.cos_max.clamp(-1.0, 1.0).acos().to_degrees(),
            "units": "irradiance: W/m^2 on a plane facing the sun, linear RGB (the Hosek-Wilkie model's CIE-weighted units for a daylight sun); color: irradiance over its largest channel",
        })
    });
    // The sky as read, and whether it lights anything (an analytic sky with no sun up does
    // not).
    let sky = scene.sky.as_ref().map_or(serde_json::Value::Null, |s| {
        let mut v = sky_json(
            s.kind,
            &s.path,
            s.intensity,
            s.rotation_deg,
            (s.turbidity, s.ground_albedo, s.ambient),
            &s.prepare,
            &s.room,
        );
        if s.kind == scene::SkyKind::Mix {
            v["layers"] = s
                .layers
                .iter()
                .map(|l| {
                    let mut j = sky_json(
                        l.kind,
                        &l.path,
                        l.intensity,
                        l.rotation_deg,
                        (l.turbidity, l.ground_albedo, l.ambient),
                        &l.prepare,
                        &l.room,
                    );
                    j["weight"] = json!(l.weight);
                    j
                })
                .collect();
        }
        v["lit"] = json!(world
            .trace
            .lights
            .iter()
            .any(|l| matches!(l, Light::Sky(_))));
        v
    });
    // Positions and radii as placed in the world (a prefab's light by its placement).
    let placed = |i: usize, p: [f32; 3], r: f32| -> ([f32; 3], f32) {
        world
            .placed_lights
            .get(i)
            .map_or((p, r), |(w, wr)| (w.to_array(), *wr))
    };
    for (i, l) in scene.lights.iter().enumerate() {
        let (position, radius) = placed(i, l.position, l.radius);
        lights.push(json!({
            "key": l.key, "id": l.id, "kind": "light",
            "position": position, "color": l.color, "intensity": l.intensity,
            "radius": radius, "range": l.range, "shadow": l.shadow,
            "units": "radiant intensity color*intensity W/sr",
        }));
    }
    for (i, e) in scene.emitters.iter().enumerate() {
        let (position, radius) = placed(scene.lights.len() + i, e.position, e.radius);
        lights.push(json!({
            "key": e.key, "id": e.id, "kind": "emitter",
            "position": position, "color": e.color, "intensity": e.intensity, "radius": radius,
            "units": "sphere of radiance color*intensity/(pi radius^2) W/(m^2 sr)",
        }));
    }
    // The haze as resolved (each density with its default from `amount` applied), so that a
    // live renderer fogs what it draws over the plate with the same medium (docs/plates.md).
    let haze = scene.haze.as_ref().map_or(serde_json::Value::Null, |h| {
        json!({
            "lo": h.lo, "hi": h.hi,
            "fog": h.fog, "smoke": h.smoke, "mist": h.mist, "floor": h.floor,
            "phase": h.phase, "back": h.back, "gold": h.gold, "ambient": h.ambient,
            "reach": h.reach, "unmapped": h.unmapped, "seed": h.seed,
            "units": "lo, hi: world-space box, scene units; fog, smoke, mist, floor: extinction per scene unit (fog uniform, mist its mean, smoke a wisp's core, floor its value at lo.y falling as exp(-(y - lo.y)/h) with h a tenth of the box's height; docs/haze.md); phase: Henyey-Greenstein g of the forward lobe, back: the backward lobe's weight; gold: single-scattering albedo, linear RGB; ambient: radiance the haze scatters, W/(m^2 sr), linear RGB",
        })
    });
    let emissive_triangles = world
        .trace
        .lights
        .iter()
        .filter(|l| matches!(l, Light::Triangle { .. }))
        .count();
    json!({
        "format": "pfx-bake plates 1",
        "version": env!("CARGO_PKG_VERSION"),
        "scene": scene.file.to_string_lossy().replace('\\', "/"),
        "size": options.size,
        "spp": options.settings.spp,
        "seed": options.settings.seed,
        "max_depth": options.settings.max_depth,
        "samples": samples,
        "camera": {
            "view": mat(cam.view_matrix()),
            "projection": mat(cam.projection_matrix()),
            "conventions": "column-major 4x4 (view[c][r]); view is world-to-camera, right-handed, camera looking down -Z, +Y up; projection is OpenGL clip space (z in -1..1) including lens shift",
            "position": cam.origin.to_array(),
            "near": cam.near,
            "far": cam.far,
            "fov_deg": cam.fov_deg,
        },
        "depth": {
            "meaning": "planar view-space depth along the view direction at the pixel centre, scene units",
            "sky": cam.far,
        },
        "inputs": inputs,
        "lights": lights,
        "emissive_triangles": emissive_triangles,
        "sun": sun,
        "sky": sky,
        "haze": haze,
        "objects": world.objects,
        "text": world.texts,
        "not_drawn": world.capabilities,
    })
}
