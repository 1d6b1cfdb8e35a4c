//! Paths: a written path normalised inside the root, and found on disk with its exact case.

use super::*;

impl Ctx {
    /// Checks a written path; reports and returns `Refused`, or returns its normalised form.
    pub(crate) fn path(&mut self, at: &Sp, key: &str, raw: &str, rule: PathRule) -> PathCheck {
        let r = self.path_inner(at, key, raw, rule);
        if let PathCheck::Ok(p) = &r {
            self.ok_paths
                .push((at.file, key.to_string(), at.clone(), p.clone()));
        }
        r
    }

    pub(super) fn path_inner(
        &mut self,
        at: &Sp,
        key: &str,
        raw: &str,
        rule: PathRule,
    ) -> PathCheck {
        let rel = match normalize(raw) {
            Ok(p) => p,
            Err((code, msg)) => {
                self.err(at, code, key, msg);
                return PathCheck::Refused;
            }
        };
        if rel.as_os_str().is_empty() && rule.exists {
            self.err(
                at,
                Code::BadPath,
                key,
                format!("`{raw}` names the project root itself, not a file"),
            );
            return PathCheck::Refused;
        }
        if let Some(suffix) = rule.suffix {
            if !raw.ends_with(suffix) {
                self.err(
                    at,
                    Code::BadValue,
                    key,
                    format!("`{raw}` must name a *{suffix} file"),
                );
                return PathCheck::Refused;
            }
        }
        if self.overlay.contains_key(&rel) {
            return PathCheck::Ok(rel);
        }
        let mut dir = self.root.clone();
        let mut sofar = PathBuf::new();
        let comps: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        for (i, c) in comps.iter().enumerate() {
            let listing = self.listing(&sofar, &dir);
            let exact = listing.iter().any(|n| n == c);
            if !exact {
                let lower = c.to_lowercase();
                if let Some(other) = listing.iter().find(|n| n.to_lowercase() == lower) {
                    let mut real = sofar.clone();
                    real.push(other);
                    self.err(
                        at,
                        Code::PathCase,
                        key,
                        format!(
                            "`{raw}` exists only with another case, as `{}`",
                            real.to_string_lossy()
                        ),
                    );
                    return PathCheck::Refused;
                }
                if rule.exists {
                    self.err(
                        at,
                        Code::MissingFile,
                        key,
                        format!("`{raw}` does not exist"),
                    );
                    return PathCheck::Refused;
                }
                return PathCheck::Ok(rel);
            }
            dir.push(c);
            sofar.push(c);
            if i + 1 == comps.len() && rule.exists && dir.is_dir() {
                self.err(
                    at,
                    Code::MissingFile,
                    key,
                    format!("`{raw}` is a folder, not a file"),
                );
                return PathCheck::Refused;
            }
        }
        PathCheck::Ok(rel)
    }

    pub(super) fn listing(&mut self, rel: &Path, abs: &Path) -> Vec<String> {
        if let Some(l) = self.dirs.get(rel) {
            return l.clone().unwrap_or_default();
        }
        let l = std::fs::read_dir(abs).ok().map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        });
        self.dirs.insert(rel.to_path_buf(), l.clone());
        l.unwrap_or_default()
    }

    // -----------------------------------------------------------------------------------------
    // cross-key rules a table alone decides
}
