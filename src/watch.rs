//! `bake --watch`: bake the preview again whenever a file the scene reads changes.
//!
//! The watch polls: every [`POLL`] it compares each watched file's modification time and
//! length with what it saw when the bake started. Polling a few dozen files costs nothing
//! next to a render, works the same on every file system (network shares and editors that
//! replace files by renaming included, where change notifications are unreliable) and needs
//! no dependency. A change while a bake is rendering abandons that bake at the next tile and
//! starts a new one; a bake that fails on bad input reports its diagnostics and waits for the
//! next change. The loop ends only when the process is stopped (Ctrl-C).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use crate::bake::{bake_previewed, BakeError, BakeOptions, BakeReport, Preview};
use crate::integrator::Progress;

/// How often the watched files are looked at.
pub const POLL: Duration = Duration::from_millis(250);

/// What the watch loop tells its caller (the binary prints it).
#[derive(Debug)]
pub enum WatchEvent {
    /// A bake starts (the first, or after a change).
    Baking,
    /// A bake finished and wrote its plate; its frames are in the preview file.
    Baked(Box<BakeReport>),
    /// A bake stopped on an error (bad input, say); the watch waits for a change.
    Failed(BakeError),
    /// An input changed while a bake rendered: that bake was abandoned, the next starts.
    Restarted,
    /// The watch waits for one of these files to change.
    Waiting(usize),
}

/// A file's state as the watch compares it: modification time and length (`None` while the
/// file is missing).
type Stamp = Option<(SystemTime, u64)>;

fn stamp(path: &Path) -> Stamp {
    let m = std::fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// The watched files and their stamps when the current bake started.
struct Watched {
    files: Vec<(PathBuf, Stamp)>,
}

impl Watched {
    fn new(files: impl IntoIterator<Item = PathBuf>) -> Watched {
        let mut files: Vec<PathBuf> = files.into_iter().collect();
        files.sort();
        files.dedup();
        Watched {
            files: files.into_iter().map(|f| (f.clone(), stamp(&f))).collect(),
        }
    }

    fn changed(&self) -> bool {
        self.files.iter().any(|(f, s)| stamp(f) != *s)
    }
}

/// Bakes `options` with a preview into `frame`, then again whenever a file the bake read
/// changes, forever. Each event goes to `on_event`.
pub fn watch(
    options: &BakeOptions,
    frame: Option<&Path>,
    progress: &dyn Progress,
    on_event: &mut dyn FnMut(WatchEvent),
) -> ! {
    // Until a bake has read the scene, the scene file is all there is to watch.
    let mut inputs: Vec<PathBuf> = vec![options.scene.clone()];
    loop {
        let watched = Watched::new(inputs.iter().cloned());
        let last_poll = Mutex::new(Instant::now());
        let stop = || {
            // Between tiles, from every worker thread: look at the files at most every POLL.
            let mut last = last_poll.lock().unwrap_or_else(|e| e.into_inner());
            if last.elapsed() < POLL {
                return false;
            }
            *last = Instant::now();
            watched.changed()
        };
        let preview = Preview {
            file: frame.map(Path::to_path_buf),
            stop: &stop,
        };
        on_event(WatchEvent::Baking);
        match bake_previewed(options, Some(&preview), progress) {
            Ok(report) => {
                inputs = report.inputs.clone();
                inputs.push(options.scene.clone());
                on_event(WatchEvent::Baked(Box::new(report)));
            }
            Err(BakeError::Interrupted) => {
                on_event(WatchEvent::Restarted);
                continue;
            }
            Err(e) => {
                // The files the diagnostics name may be what the user edits next.
                if let BakeError::Input(ds) = &e {
                    let root = crate::scene::root_of(&options.scene);
                    inputs.extend(ds.iter().map(|d| root.join(&d.file)));
                }
                on_event(WatchEvent::Failed(e));
            }
        }
        // Compare against the stamps taken when this bake started: an edit made while it
        // rendered is not missed.
        let waiting = Watched {
            files: watched.files.clone(),
        };
        let extra = Watched::new(
            inputs
                .iter()
                .filter(|f| !waiting.files.iter().any(|(w, _)| w == *f))
                .cloned(),
        );
        on_event(WatchEvent::Waiting(waiting.files.len() + extra.files.len()));
        while !waiting.changed() && !extra.changed() {
            std::thread::sleep(POLL);
        }
    }
}
