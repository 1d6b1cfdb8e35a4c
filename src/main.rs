//! `bake`: parse the arguments, call the library, report.

// The doc comments of `Args` are the --help text, written in the format's words ([plates]),
// not rustdoc links.
#![allow(rustdoc::broken_intra_doc_links)]

use std::io::IsTerminal;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use pfx_bake::bake::{bake, bake_previewed, BakeError, BakeOptions, BakeReport, Preview};
use pfx_bake::integrator::{Plan, Progress, Settings};
use pfx_bake::report::{self, Renderer};
use pfx_bake::scene::{self, project};
use pfx_bake::watch::{watch, WatchEvent};

/// Bake a pfx-scene format 1 scene into a plate folder: beauty.exr, depth.exr, preview.png,
/// casters.glb and manifest.json, path-traced. `bake check [PATH]` checks a scene or a whole project instead,
/// writing nothing.
///
/// Exit status: 0 baked; 1 the input is wrong (a diagnostic names file, line, column, key and
/// code; nothing is written); 2 a usage error; 3 the plate folder could not be written.
#[derive(Parser, Debug)]
#[command(
    name = "bake",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// The scene to bake (a *.scene.toml file).
    #[arg(required = true)]
    scene: Option<PathBuf>,
    /// The plate folder to write. Default: the scene's [plates] dir, relative to the project root.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Samples per pixel.
    #[arg(long, value_name = "N", default_value_t = 64)]
    spp: u32,
    /// Image size in pixels, WIDTHxHEIGHT (the format holds no resolution).
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_size)]
    size: [u32; 2],
    /// Worker threads. Default: one per core. The image is the same for any count.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Seed of every random number: the same seed gives the same bytes.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Most path segments, counting the camera ray (Russian roulette ends most paths sooner).
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1024))]
    max_depth: u32,
    /// Adaptive sampling: stop a pixel once the estimated relative error of its mean falls
    /// below E (e.g. 0.01), checked after every pass of --min-spp samples.
    #[arg(long, value_name = "E")]
    noise_threshold: Option<f64>,
    /// Samples every pixel takes before adaptive sampling may stop it, and the pass length of
    /// adaptive or time-limited bakes. Default: 16 (or --spp if fewer).
    #[arg(long, value_name = "N")]
    min_spp: Option<u32>,
    /// Finish the pass in progress once the render has run this long and write the plate with
    /// the samples taken (the one option that makes the bytes depend on the machine).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    /// Also write denoised.exr: the beauty filtered by Intel Open Image Denoise 2.x with the
    /// albedo and normal auxiliaries (albedo.exr, normal.exr); beauty.exr stays the raw
    /// render. Needs OIDN at run time (`pip install pyoidn`, or PFX_OIDN=path).
    #[arg(long)]
    denoise: bool,
    /// Also write passes.exr: the data passes in one multi-layer EXR (shading normal,
    /// albedo, roughness, pick id, sample counts, variance, Cryptomatte for objects and
    /// materials); the other files stay the same bytes.
    #[arg(long)]
    passes: bool,
    /// Path guiding: before rendering, learn where light arrives from (a fixed training pass
    /// of its own seed) and sample rough surfaces seen first from that and their BSDF.
    /// Unbiased; the same bytes for any thread count. Off by default: on the flagship it
    /// does not pay yet (docs/rendering.md, "Path guiding").
    #[arg(long)]
    guiding: bool,
    /// Render progressively, in passes that double the samples (1, 2, 4, … --spp), and
    /// rewrite the frame `<plate folder>.preview.png` (beside the plate folder) after each
    /// pass, denoised when Open Image Denoise is found. The plate folder is the same bytes as
    /// without --preview.
    #[arg(long)]
    preview: bool,
    /// Bake with --preview, then again whenever a file the scene reads changes (a change
    /// while rendering starts the bake over); runs until stopped (Ctrl-C).
    #[arg(long)]
    watch: bool,
    /// Print nothing but errors (and the --json report).
    #[arg(long)]
    quiet: bool,
    /// Print a final machine-readable JSON report on stdout.
    #[arg(long)]
    json: bool,
}

/// The commands besides baking.
#[derive(Subcommand, Debug)]
enum Command {
    /// Check a scene, or a whole project, against the format and write nothing.
    ///
    /// PATH is a scene file (checked with everything it reads) or a folder (the whole project
    /// of its root: the nearest folder upward holding project.toml, else the folder itself);
    /// without PATH, the current folder. Exit status: 0 no errors (warnings allowed); 1 errors;
    /// 2 a usage error.
    Check(CheckArgs),
}

#[derive(clap::Args, Debug)]
struct CheckArgs {
    /// A scene file, or a project folder. Default: the current folder.
    path: Option<PathBuf>,
    /// `human`: rustc-style text with the source line underlined; `json`: one JSON object
    /// per diagnostic per line on stdout (JSON Lines) and nothing else there.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Human,
    Json,
}

/// `bake check`: 0 without errors, 1 with.
fn check(args: &CheckArgs) -> ExitCode {
    let path = args.path.clone().unwrap_or_else(|| PathBuf::from("."));
    let checked = project::check_path(&path);
    let errors = checked.errors();
    let summary = report::summary(errors, checked.warnings(), checked.files.len());
    match args.format {
        Format::Json => {
            let mut out = std::io::stdout().lock();
            for d in &checked.diagnostics {
                let _ = writeln!(out, "{}", report::json_line(d));
            }
            eprintln!("{summary}");
        }
        Format::Human => {
            let mut r = renderer(&checked.root);
            let mut out = std::io::stdout().lock();
            for d in &checked.diagnostics {
                let _ = writeln!(out, "{}", r.render(d));
            }
            let _ = writeln!(out, "{summary}");
        }
    }
    if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A renderer showing files from where the command runs.
fn renderer(root: &Path) -> Renderer {
    let cwd = std::env::current_dir().unwrap_or_default();
    Renderer::new(root, report::shown_root(root, &cwd))
}

fn parse_size(s: &str) -> Result<[u32; 2], String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s:?} is not WIDTHxHEIGHT"))?;
    let w: u32 = w
        .trim()
        .parse()
        .map_err(|_| format!("{w:?} is not a width in pixels"))?;
    let h: u32 = h
        .trim()
        .parse()
        .map_err(|_| format!("{h:?} is not a height in pixels"))?;
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err("each side must be 1 to 16384 pixels".into());
    }
    Ok([w, h])
}

/// Progress on a terminal: an indicatif bar with done, elapsed, ETA and samples per second.
struct Bar(ProgressBar);

impl Progress for Bar {
    fn begin(&self, total: u64) {
        // Each bake of --watch and each preview starts from 0.
        self.0.reset();
        self.0.set_length(total);
    }
    fn advance(&self, n: u64) {
        self.0.inc(n);
    }
}

/// Progress elsewhere: a plain line at each tenth.
struct Lines {
    total: AtomicU64,
    done: AtomicU64,
    start: Instant,
    last: Mutex<u64>,
}

impl Progress for Lines {
    fn begin(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = 0;
    }
    fn advance(&self, n: u64) {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        let total = self.total.load(Ordering::Relaxed).max(1);
        let tenth = done * 10 / total;
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if tenth > *last {
            *last = tenth;
            let secs = self.start.elapsed().as_secs_f64();
            eprintln!(
                "bake: {:3}% {done}/{total} samples, {secs:.1} s, {:.2} M samples/s",
                tenth * 10,
                done as f64 / secs.max(1e-9) / 1e6
            );
        }
    }
}

struct Quiet;
impl Progress for Quiet {
    fn begin(&self, _: u64) {}
    fn advance(&self, _: u64) {}
}

fn report_line(r: &BakeReport) -> String {
    format!(
        "bake: wrote {} in {:.2} s ({} samples, {:.2} M samples/s, {:.2} M rays/s)",
        r.out.display(),
        r.seconds,
        r.samples,
        r.samples_per_second / 1e6,
        r.rays_per_second / 1e6
    )
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    if let Some(Command::Check(c)) = &args.command {
        return check(c);
    }
    // clap requires SCENE when no command is given.
    let Some(scene_path) = args.scene.clone() else {
        return ExitCode::from(2);
    };
    let options = BakeOptions {
        scene: scene_path.clone(),
        out: args.out.clone(),
        size: args.size,
        settings: Settings {
            spp: args.spp,
            max_depth: args.max_depth,
            seed: args.seed,
            ..Settings::default()
        },
        plan: Plan {
            noise_threshold: args.noise_threshold,
            min_spp: args.min_spp.unwrap_or(0),
            time_limit: args.time_limit,
            auxiliaries: args.denoise,
            passes: args.passes,
        },
        threads: args.threads,
        denoise: args.denoise,
        guiding: args.guiding,
    };
    // A clone of the terminal's bar (it shares its state), to clear it when the bake ends.
    let mut bar_handle = None;
    let progress: Box<dyn Progress> = if args.quiet {
        Box::new(Quiet)
    } else if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40} {percent:>3}% {human_pos}/{human_len} samples  {elapsed_precise} ETA {eta}  {per_sec}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar_handle = Some(bar.clone());
        Box::new(Bar(bar))
    } else {
        Box::new(Lines {
            total: AtomicU64::new(0),
            done: AtomicU64::new(0),
            start: Instant::now(),
            last: Mutex::new(0),
        })
    };
    if args.watch {
        watch(&options, None, progress.as_ref(), &mut |event| {
            watch_event(&args, &scene_path, event)
        });
    }
    let result = if args.preview {
        let never = || false;
        let preview = Preview {
            file: None,
            stop: &never,
        };
        bake_previewed(&options, Some(&preview), progress.as_ref())
    } else {
        bake(&options, progress.as_ref())
    };
    if let Some(bar) = bar_handle {
        bar.finish_and_clear();
    }
    match result {
        Ok(report) => {
            print_report(&args, &scene_path, &report);
            if args.json {
                let v = serde_json::json!({ "ok": true, "report": report });
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            print_error(&scene_path, &e);
            if args.json {
                let diagnostics = match &e {
                    BakeError::Input(d) => serde_json::to_value(d).unwrap_or_default(),
                    _ => serde_json::Value::Array(Vec::new()),
                };
                let v = serde_json::json!({
                    "ok": false,
                    "exit": e.exit_code(),
                    "error": e.to_string(),
                    "diagnostics": diagnostics,
                });
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            }
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// Prints one event of `--watch` (errors always, the rest unless --quiet).
fn watch_event(args: &Args, scene_path: &Path, event: WatchEvent) {
    match event {
        WatchEvent::Failed(e) => print_error(scene_path, &e),
        _ if args.quiet => {}
        WatchEvent::Baking => eprintln!("bake: baking {}", scene_path.display()),
        WatchEvent::Baked(report) => print_report(args, scene_path, &report),
        WatchEvent::Restarted => eprintln!("bake: an input changed; baking again"),
        WatchEvent::Waiting(n) => {
            eprintln!("bake: watching {n} files for changes (Ctrl-C to stop)")
        }
    }
}

/// The warnings, the capability notes and the report line of a finished bake (unless
/// --quiet).
fn print_report(args: &Args, scene_path: &Path, report: &BakeReport) {
    if args.quiet {
        return;
    }
    let mut r = renderer(&scene::root_of(scene_path));
    for w in &report.warnings {
        eprint!("{}", r.render(w));
    }
    for c in &report.capabilities {
        let n = if c.count > 1 {
            format!(" ({} places)", c.count)
        } else {
            String::new()
        };
        eprintln!(
            "{}:{}:{}: warning: {}{n}",
            c.at.file.display(),
            c.at.line,
            c.at.column,
            c.message
        );
    }
    for w in &report.asset_warnings {
        eprintln!("warning: {w}");
    }
    eprintln!("{}", report_line(report));
    if let Some(f) = &report.preview_file {
        eprintln!(
            "bake: preview {} after passes of {:?} spp{}",
            f.display(),
            report.preview_passes,
            if report.preview_denoised {
                ", denoised"
            } else {
                ""
            }
        );
    }
}

/// A failed bake's diagnostics or message, on stderr.
fn print_error(scene_path: &Path, e: &BakeError) {
    match e {
        BakeError::Input(ds) => {
            let mut r = renderer(&scene::root_of(scene_path));
            for d in ds {
                eprintln!("{}", r.render(d));
            }
            let n = ds.iter().filter(|d| d.is_error()).count();
            eprintln!(
                "bake: {n} error{}; nothing written",
                if n == 1 { "" } else { "s" }
            );
        }
        _ => eprintln!("{e}"),
    }
}
