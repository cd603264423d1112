//! A scratch directory per test, removed when it drops — after a pass or a panic — so
//! a test run leaves nothing in the temp dir, and tests running in parallel
//! in one process never share a file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the temp dir, removed on drop.
pub struct Scratch {
    dir: PathBuf,
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

impl Scratch {
    /// `wirebench-test-<pid>-<n>-<name>`: unique per process and call.
    pub fn new(name: &str) -> Scratch {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("wirebench-test-{}-{n}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        Scratch { dir }
    }

    /// A fresh directory holding a copy of the tree at `from`.
    pub fn copy_of(name: &str, from: &Path) -> Scratch {
        let s = Scratch::new(name);
        copy_tree(from, &s.dir);
        s
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Writes `bytes` to `name` inside the directory and returns its path.
    pub fn file(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.dir.join(name);
        std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        p
    }
}

/// Copies the files and folders below `from` into `to` (created).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for e in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
