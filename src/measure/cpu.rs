//! CPU time of threads and processes, read from Linux's `/proc` with std only.
//!
//! Two sources, two resolutions:
//!
//! - `/proc/PID/task/TID/schedstat`, first field: the thread's on-CPU time in
//!   **nanoseconds** (the scheduler's `sum_exec_runtime`): user code and the
//!   kernel work done on the thread's behalf (system calls, page faults, the
//!   TCP stack when it runs in the calling thread). This is what the per-role
//!   figures add up.
//! - `/proc/PID/task/TID/stat` and `/proc/PID/stat`, fields 14 and 15
//!   (`utime`, `stime`): user and kernel time in **clock ticks** (`USER_HZ`,
//!   read from the auxiliary vector; 100 per second on Linux). The kernel
//!   scales the two so that their sum follows the precise runtime, but the split
//!   itself is sampled, so a user share is only meaningful summed over many
//!   ticks (a whole round), never for one request. The process-wide `stat`
//!   also counts threads that have already exited, which the per-thread files
//!   cannot: it is the check that nothing was lost.
//!
//! Not counted anywhere here: network work the kernel does in softirq context
//! (charged to whichever thread was interrupted, or to `ksoftirqd`), and other
//! processes. A thread that exits between two snapshots loses its counts from
//! the per-thread sum; compare with the process total to see how much.
//!
//! A [`Snapshot`] reads every thread of a process (or of a process tree:
//! `--server-pid` with nginx's workers) at one moment; [`Snapshot::delta`]
//! subtracts two snapshots for the threads a caller selects by name.

use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

/// `USER_HZ` on every Linux architecture this runs on, used when the
/// auxiliary vector cannot be read.
pub const DEFAULT_TICKS_PER_SECOND: u64 = 100;

/// A `/proc` file that did not have the expected shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What the parser expected, e.g. "`)` closing the comm field".
    pub expected: &'static str,
    /// What it found (shortened).
    pub found: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, found {:?}", self.expected, self.found)
    }
}

impl std::error::Error for ParseError {}

fn parse_err(expected: &'static str, found: &str) -> ParseError {
    ParseError {
        expected,
        found: found.chars().take(80).collect(),
    }
}

/// The fields of a `stat` line this module uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    /// Field 2, the thread or process name (at most 15 bytes, may hold spaces and parentheses).
    pub comm: String,
    /// Field 4, the parent process id.
    pub ppid: u32,
    /// Field 14, user time in clock ticks.
    pub utime: u64,
    /// Field 15, kernel time in clock ticks.
    pub stime: u64,
}

/// Parses `/proc/PID/stat` or `/proc/PID/task/TID/stat`.
///
/// The name is field 2 in parentheses and may itself contain `)` and spaces,
/// so the fixed fields are read after the **last** `)`.
pub fn parse_stat(text: &str) -> Result<Stat, ParseError> {
    let open = text
        .find('(')
        .ok_or_else(|| parse_err("`(` opening the comm field", text))?;
    let close = text
        .rfind(')')
        .ok_or_else(|| parse_err("`)` closing the comm field", text))?;
    if close < open {
        return Err(parse_err("`)` after `(`", text));
    }
    let comm = text[open + 1..close].to_string();
    // After the comm: field 3 (state) is index 0, so field N is index N - 3.
    let rest: Vec<&str> = text[close + 1..].split_ascii_whitespace().collect();
    let field = |n: usize, what: &'static str| -> Result<u64, ParseError> {
        let s = rest.get(n - 3).ok_or_else(|| parse_err(what, &text[close + 1..]))?;
        s.parse().map_err(|_| parse_err(what, s))
    };
    let ppid = field(4, "a parent pid in field 4")?;
    Ok(Stat {
        comm,
        ppid: u32::try_from(ppid).map_err(|_| parse_err("a parent pid that fits in u32", &ppid.to_string()))?,
        utime: field(14, "user ticks in field 14")?,
        stime: field(15, "kernel ticks in field 15")?,
    })
}

/// Parses `schedstat`: `on_cpu_ns wait_ns timeslices`; returns the first field.
pub fn parse_schedstat(text: &str) -> Result<u64, ParseError> {
    let first = text.split_ascii_whitespace().next().unwrap_or("");
    first
        .parse()
        .map_err(|_| parse_err("on-CPU nanoseconds as the first field", text))
}

/// `AT_CLKTCK` from an auxiliary vector (`/proc/self/auxv`: native-endian
/// `usize` pairs of type and value, ended by type 0).
pub fn parse_auxv_clock_ticks(auxv: &[u8]) -> Option<u64> {
    const AT_NULL: u64 = 0;
    const AT_CLKTCK: u64 = 17;
    const W: usize = std::mem::size_of::<usize>();
    let word = |c: &[u8]| -> u64 {
        let mut b = [0u8; W];
        b.copy_from_slice(c);
        usize::from_ne_bytes(b) as u64
    };
    for pair in auxv.chunks_exact(2 * W) {
        match word(&pair[..W]) {
            AT_NULL => return None,
            AT_CLKTCK => return Some(word(&pair[W..])).filter(|&t| t > 0),
            _ => {}
        }
    }
    None
}

/// Clock ticks per second for `utime`/`stime` (`sysconf(_SC_CLK_TCK)`),
/// read once from `/proc/self/auxv`.
pub fn ticks_per_second() -> u64 {
    static TICKS: OnceLock<u64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        std::fs::read("/proc/self/auxv")
            .ok()
            .and_then(|a| parse_auxv_clock_ticks(&a))
            .unwrap_or(DEFAULT_TICKS_PER_SECOND)
    })
}

/// On-CPU ns of the calling thread so far: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`
/// ([`thread_clock_ns`]), exact to the nanosecond, else
/// `/proc/thread-self/schedstat`; None where neither exists.
///
/// Both read the scheduler's `sum_exec_runtime`. The clock brings it up to
/// date for the running thread before reading; the file does not, so it may
/// lag by up to one tick (1–4 ms), and only yielding first brings it up to
/// date, when another thread is runnable.
pub fn thread_cpu_ns() -> Option<u64> {
    if let Some(ns) = thread_clock_ns() {
        return Some(ns);
    }
    std::thread::yield_now();
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    parse_schedstat(&text).ok()
}

/// `CLOCK_THREAD_CPUTIME_ID` (include/uapi/linux/time.h).
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

/// `struct timespec` on 64-bit Linux: two 64-bit fields.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[allow(unsafe_code)]
// SAFETY: the POSIX prototype `int clock_gettime(clockid_t, struct timespec *)`,
// with `clockid_t` = int and `struct timespec` = two 64-bit fields on every
// 64-bit Linux ABI (the cfg above); std itself links and calls it for `Instant`.
unsafe extern "C" {
    fn clock_gettime(clk: i32, tp: *mut Timespec) -> i32;
}

/// The calling thread's CPU clock in ns; None off 64-bit Linux or on error.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[allow(unsafe_code)]
pub fn thread_clock_ns() -> Option<u64> {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a live, writable `Timespec` of the layout the call
    // expects, for the whole call; the call writes only into it, and an
    // unknown clock is an error return (EINVAL), not undefined behaviour.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 || ts.tv_sec < 0 || !(0..1_000_000_000).contains(&ts.tv_nsec) {
        return None;
    }
    Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// The calling thread's CPU clock in ns; None off 64-bit Linux.
#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
pub fn thread_clock_ns() -> Option<u64> {
    None
}

/// CPU time of a thread, a group of threads or a process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTime {
    /// On-CPU time in ns (schedstat; for a process total, ticks converted).
    pub ns: u64,
    /// User and kernel time in clock ticks (the split of `ns`, coarse).
    pub user_ticks: u64,
    pub system_ticks: u64,
}

impl CpuTime {
    pub fn add(&mut self, other: CpuTime) {
        self.ns += other.ns;
        self.user_ticks += other.user_ticks;
        self.system_ticks += other.system_ticks;
    }

    /// `self - earlier`, each field saturating at 0 (a counter never runs backwards).
    pub fn since(self, earlier: CpuTime) -> CpuTime {
        CpuTime {
            ns: self.ns.saturating_sub(earlier.ns),
            user_ticks: self.user_ticks.saturating_sub(earlier.user_ticks),
            system_ticks: self.system_ticks.saturating_sub(earlier.system_ticks),
        }
    }

    /// Fraction of the ticks spent in user mode; None with no ticks at all.
    pub fn user_share(&self) -> Option<f64> {
        let total = self.user_ticks + self.system_ticks;
        (total > 0).then(|| self.user_ticks as f64 / total as f64)
    }

    /// A process total from `stat` ticks (`ns` from the ticks).
    pub fn from_ticks(user_ticks: u64, system_ticks: u64, ticks_per_second: u64) -> CpuTime {
        let hz = ticks_per_second.max(1);
        CpuTime {
            ns: (user_ticks + system_ticks).saturating_mul(1_000_000_000) / hz,
            user_ticks,
            system_ticks,
        }
    }
}

/// One thread at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadSample {
    /// The process the thread belongs to.
    pub pid: u32,
    pub tid: u32,
    /// `comm`: the name given with `thread::Builder::name` (first 15 bytes).
    pub name: String,
    pub time: CpuTime,
}

/// Every thread of one process (or process tree) at one moment, and the
/// processes' own totals, which include threads that have exited.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub threads: Vec<ThreadSample>,
    /// Sum of the processes' `stat` user and kernel ticks (`ns` from ticks).
    pub processes: CpuTime,
}

/// Reads one thread; None when it exited while we looked.
fn read_thread(task_dir: &Path, pid: u32, tid: u32) -> Result<Option<ThreadSample>, String> {
    let read = |name: &str| match std::fs::read_to_string(task_dir.join(name)) {
        Ok(t) => Ok(Some(t)),
        // ENOENT / ESRCH: the thread is gone.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(3) => Ok(None),
        Err(e) => Err(format!("{}: {e}", task_dir.join(name).display())),
    };
    let (Some(stat), Some(sched)) = (read("stat")?, read("schedstat")?) else {
        return Ok(None);
    };
    let where_ = |f: &str, e: ParseError| format!("{}: {e}", task_dir.join(f).display());
    let st = parse_stat(&stat).map_err(|e| where_("stat", e))?;
    let ns = parse_schedstat(&sched).map_err(|e| where_("schedstat", e))?;
    Ok(Some(ThreadSample {
        pid,
        tid,
        name: st.comm,
        time: CpuTime {
            ns,
            user_ticks: st.utime,
            system_ticks: st.stime,
        },
    }))
}

fn numeric_entries(dir: &Path) -> Result<Vec<u32>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut ids: Vec<u32> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    ids.sort_unstable();
    Ok(ids)
}

impl Snapshot {
    /// `pid` and all its descendants (children found through the parent pid
    /// field of every `/proc/*/stat`).
    pub fn of_tree(pid: u32) -> Result<Snapshot, String> {
        Snapshot::of_processes(&process_tree(pid)?)
    }

    /// Every thread of each process in `pids`, then the processes' totals
    /// (threads first, so a reader's own work between the two reads stays
    /// out of the per-thread numbers; see [`Snapshot::of_processes_totals_first`]).
    pub fn of_processes(pids: &[u32]) -> Result<Snapshot, String> {
        let mut s = Snapshot {
            threads: Snapshot::threads_of(pids)?,
            ..Snapshot::default()
        };
        s.processes = totals(pids)?;
        Ok(s)
    }

    /// Like [`Snapshot::of_processes`], reading the totals before the threads:
    /// for the end of an interval, so that reading the threads is not counted
    /// inside it.
    pub fn of_processes_totals_first(pids: &[u32]) -> Result<Snapshot, String> {
        let processes = totals(pids)?;
        Ok(Snapshot {
            threads: Snapshot::threads_of(pids)?,
            processes,
        })
    }

    fn threads_of(pids: &[u32]) -> Result<Vec<ThreadSample>, String> {
        let mut threads = Vec::new();
        for &pid in pids {
            let task = Path::new("/proc").join(pid.to_string()).join("task");
            let tids = match numeric_entries(&task) {
                Ok(t) => t,
                Err(_) if !task.exists() => continue, // the process exited
                Err(e) => return Err(e),
            };
            for tid in tids {
                threads.extend(read_thread(&task.join(tid.to_string()), pid, tid)?);
            }
        }
        Ok(threads)
    }

    /// CPU time of the threads whose name `select` accepts, from `self` to
    /// `later`: a thread in both is the difference, a thread only in `later`
    /// started in between and counts whole, a thread only in `self` exited and
    /// is lost (it shows in the process totals only).
    pub fn delta(&self, later: &Snapshot, select: impl Fn(&str) -> bool) -> CpuTime {
        let mut sum = CpuTime::default();
        for t in later.threads.iter().filter(|t| select(&t.name)) {
            let before = self
                .threads
                .iter()
                .find(|b| b.pid == t.pid && b.tid == t.tid && b.name == t.name)
                .map_or(CpuTime::default(), |b| b.time);
            sum.add(t.time.since(before));
        }
        sum
    }

    /// The processes' own totals from `self` to `later` (threads that exited included).
    pub fn process_delta(&self, later: &Snapshot) -> CpuTime {
        later.processes.since(self.processes)
    }
}

fn totals(pids: &[u32]) -> Result<CpuTime, String> {
    let hz = ticks_per_second();
    let (mut user, mut system) = (0, 0);
    for &pid in pids {
        let path = Path::new("/proc").join(pid.to_string()).join("stat");
        match std::fs::read_to_string(&path) {
            Ok(t) => {
                let st = parse_stat(&t).map_err(|e| format!("{}: {e}", path.display()))?;
                user += st.utime;
                system += st.stime;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(3) => {}
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
    Ok(CpuTime::from_ticks(user, system, hz))
}

/// `root` and its descendants, from `(pid, ppid)` pairs, root first.
pub fn descendants(root: u32, parents: &[(u32, u32)]) -> Vec<u32> {
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let p = out[i];
        for &(pid, ppid) in parents {
            if ppid == p && !out.contains(&pid) {
                out.push(pid);
            }
        }
        i += 1;
    }
    out
}

/// `pid` and every process below it, read from `/proc/*/stat`.
pub fn process_tree(pid: u32) -> Result<Vec<u32>, String> {
    let root = Path::new("/proc").join(pid.to_string());
    if !root.join("stat").exists() {
        return Err(format!(
            "no process {pid} on this machine ({} is missing)",
            root.display()
        ));
    }
    let mut parents = Vec::new();
    for p in numeric_entries(Path::new("/proc"))? {
        let Ok(text) = std::fs::read_to_string(Path::new("/proc").join(p.to_string()).join("stat")) else {
            continue; // exited while we looked, or not ours to read
        };
        if let Ok(st) = parse_stat(&text) {
            parents.push((p, st.ppid));
        }
    }
    Ok(descendants(pid, &parents))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread's `stat` as Linux 6.x prints it (captured from a shell).
    const STAT: &str = "7835 (bash) S 7830 7835 7835 0 -1 4194560 3621 47287 3 6 2 0 39 6 20 0 1 0 100842 5124096 816 18446744073709551615 94097331109888 94097331899293 140735036111584 0 0 0 65536 4 1132560123 1 0 0 17 0 0 0 0 0 0 94097332132592 94097332180836 94098195128320 140735036119933 140735036119948 140735036119948 140735036121066 0\n";

    /// The fixed fields are read after the last `)`, whatever the name holds.
    #[test]
    fn stat_fields_after_the_comm() {
        for (comm, want) in [("(bash)", "bash"), ("(a) b (c) d)", "a) b (c) d")] {
            let s = parse_stat(&STAT.replace("(bash)", comm)).unwrap();
            let want = Stat {
                comm: want.into(),
                ppid: 7830,
                utime: 2,
                stime: 0,
            };
            assert_eq!(s, want);
        }
    }

    #[test]
    fn malformed_stat_says_what_was_expected() {
        for (text, expected) in [
            ("7835 bash S 1", "`(` opening the comm field"),
            ("7835 (bash S 1", "`)` closing the comm field"),
            ("7835 (bash) S 1 2 3", "user ticks in field 14"),
            ("7835 (bash) S x", "a parent pid in field 4"),
        ] {
            let e = parse_stat(text).unwrap_err();
            assert_eq!(e.expected, expected, "{text}");
            assert!(e.to_string().starts_with(&format!("expected {expected}")), "{e}");
        }
    }

    #[test]
    fn schedstat_first_field() {
        assert_eq!(parse_schedstat("38625494 65546815 108\n"), Ok(38_625_494));
        assert!(parse_schedstat("").is_err());
        assert!(parse_schedstat("-1 0 0").is_err());
    }

    #[test]
    fn auxv_clock_ticks() {
        let auxv = |pairs: &[usize]| pairs.iter().flat_map(|v| v.to_ne_bytes()).collect::<Vec<u8>>();
        assert_eq!(parse_auxv_clock_ticks(&auxv(&[6, 4096, 17, 100, 0, 0])), Some(100));
        assert_eq!(parse_auxv_clock_ticks(&auxv(&[6, 4096])), None);
        assert_eq!(
            parse_auxv_clock_ticks(&auxv(&[0, 0, 17, 100])),
            None,
            "AT_NULL ends the vector"
        );
    }

    #[test]
    fn ticks_to_ns_and_user_share() {
        let t = CpuTime::from_ticks(30, 10, 100);
        assert_eq!(t.ns, 400_000_000);
        assert_eq!(t.user_share(), Some(0.75));
        assert_eq!(CpuTime::default().user_share(), None);
    }

    fn thread(tid: u32, name: &str, ns: u64, user: u64, system: u64) -> ThreadSample {
        ThreadSample {
            pid: 1,
            tid,
            name: name.into(),
            time: CpuTime {
                ns,
                user_ticks: user,
                system_ticks: system,
            },
        }
    }

    #[test]
    fn delta_selects_by_name_counts_new_threads_whole_and_loses_exited_ones() {
        let before = Snapshot {
            threads: vec![
                thread(10, "http-worker", 1_000, 1, 1),
                thread(11, "load-0", 500, 0, 0),
                thread(12, "load-1", 700, 0, 0), // exits before `after`
            ],
            processes: CpuTime::from_ticks(5, 5, 100),
        };
        let after = Snapshot {
            threads: vec![
                thread(10, "http-worker", 4_000, 3, 2),
                thread(11, "load-0", 2_500, 1, 0),
                thread(13, "http-worker", 300, 0, 1), // started in between
            ],
            processes: CpuTime::from_ticks(9, 8, 100),
        };
        let server = before.delta(&after, |n| n.starts_with("http-"));
        assert_eq!(
            server,
            CpuTime {
                ns: 3_300,
                user_ticks: 2,
                system_ticks: 2
            }
        );
        assert_eq!(before.delta(&after, |n| n.starts_with("load-")).ns, 2_000);
        assert_eq!(before.process_delta(&after), CpuTime::from_ticks(4, 3, 100));
        // A reused tid with another name is another thread: counted whole.
        let renamed = Snapshot {
            threads: vec![thread(11, "http-worker", 900, 0, 0)],
            ..Snapshot::default()
        };
        assert_eq!(before.delta(&renamed, |_| true).ns, 900);
    }

    #[test]
    fn tree_follows_parent_pids() {
        let parents = [(1, 0), (100, 1), (101, 100), (102, 100), (103, 101), (200, 1)];
        assert_eq!(descendants(100, &parents), [100, 101, 102, 103]);
        assert_eq!(descendants(200, &parents), [200]);
    }

    /// Busy for `ms` of wall time; returns when it started.
    fn spin(ms: u64) -> std::time::Instant {
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed() < std::time::Duration::from_millis(ms) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        start
    }

    #[test]
    fn this_process_is_visible() {
        let s = Snapshot::of_processes(&[std::process::id()]).unwrap();
        assert!(s.threads.iter().any(|t| t.tid == std::process::id()));
        assert!(process_tree(std::process::id()).unwrap()[0] == std::process::id());
        assert!(process_tree(u32::MAX).is_err());
    }

    /// The thread clock counts this thread's work and nothing else: a busy
    /// loop of ~50 ms advances it by about as much as the wall clock, a sleep
    /// of 50 ms by almost nothing, and it agrees with schedstat (which may lag
    /// one tick) within a few ticks. [`thread_cpu_ns`] reads the same clock.
    #[test]
    fn the_thread_clock_counts_work_not_sleep() {
        let Some(t0) = thread_cpu_ns() else { return }; // no thread clock, no /proc
        assert!(thread_clock_ns().is_none_or(|c| c >= t0));
        let wall = spin(50);
        let t1 = thread_cpu_ns().unwrap();
        let busy = t1 - t0;
        assert!(
            busy > 0 && busy as u128 <= wall.elapsed().as_nanos() + 1_000_000,
            "{busy}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
        let slept = thread_cpu_ns().unwrap() - t1;
        assert!(slept < 20_000_000, "a sleep counted {slept} ns");
        if let Ok(text) = std::fs::read_to_string("/proc/thread-self/schedstat") {
            std::thread::yield_now();
            let sched = parse_schedstat(&text).unwrap();
            let now = thread_cpu_ns().unwrap();
            assert!(
                now + 1_000_000 >= sched && now - sched.min(now) < 50_000_000,
                "{now} vs {sched}"
            );
        }
    }
}
