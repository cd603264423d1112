//! What the rest of the machine did during a round: the CPU time everything
//! outside our own processes used, and the time the hypervisor stole.
//!
//! Read from the first (`cpu `) line of `/proc/stat`: busy time is `user +
//! nice + system + irq + softirq` ticks over all cores (`guest` time is
//! already inside `user`), steal is the `steal` field. The load generator
//! reads it at a round's start and finish lines, beside its own CPU
//! accounting (`crate::load::round`); the **other** CPU is the machine's busy
//! time minus our processes' (the load generator, and an external server when
//! `--server-pid` names it), both in cores (seconds of CPU per second of the
//! round). A round is **disturbed** when other work kept more than
//! [`DISTURBED_OTHER_CORES`] of a core busy or steal exceeded
//! [`DISTURBED_STEAL_CORES`]; the report counts such rounds. `/proc/stat`
//! counts in ticks of 10 ms, so over a 400 ms run one tick is 0.025 of a
//! core: both limits sit several ticks above that, so a run is never marked
//! by the counter's own step.

/// Other work above this many cores marks a round as disturbed.
pub const DISTURBED_OTHER_CORES: f64 = 0.2;
/// Steal above this many cores marks a round as disturbed: four ticks of a
/// 400 ms run (a limit of 0.02 marked every run with one tick of steal).
pub const DISTURBED_STEAL_CORES: f64 = 0.1;

/// The machine-wide counters of `/proc/stat`'s `cpu ` line, in ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MachineTicks {
    pub busy: u64,
    pub steal: u64,
}

/// Parses the `cpu ` line of a `/proc/stat` text.
pub fn parse_proc_stat(text: &str) -> Option<MachineTicks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal …
    let get = |i: usize| v.get(i).copied().unwrap_or(0);
    if v.len() < 4 {
        return None;
    }
    Some(MachineTicks {
        busy: get(0) + get(1) + get(2) + get(5) + get(6),
        steal: get(7),
    })
}

pub fn read() -> Option<MachineTicks> {
    parse_proc_stat(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// Other work and steal over one round, in cores.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MachineLoad {
    pub other_cores: f64,
    pub steal_cores: f64,
}

impl MachineLoad {
    /// From the counters at the start and end, our own CPU over the round
    /// (ns) and its length (s). Other work below zero (tick rounding) reads 0.
    pub fn between(start: MachineTicks, end: MachineTicks, ours_ns: u64, elapsed_s: f64, ticks_per_s: u64) -> Self {
        let secs = |ticks: u64| ticks as f64 / ticks_per_s.max(1) as f64;
        let span = elapsed_s.max(1e-9);
        let busy = secs(end.busy.saturating_sub(start.busy));
        let ours = ours_ns as f64 / 1e9;
        MachineLoad {
            other_cores: ((busy - ours) / span).max(0.0),
            steal_cores: secs(end.steal.saturating_sub(start.steal)) / span,
        }
    }

    /// Whether this round counts as disturbed (module docs).
    pub fn disturbed(&self) -> bool {
        self.other_cores > DISTURBED_OTHER_CORES || self.steal_cores > DISTURBED_STEAL_CORES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_line() {
        let t = "cpu  100 5 50 1000 7 3 2 11 0 0\ncpu0 1 2 3 4\n";
        assert_eq!(parse_proc_stat(t), Some(MachineTicks { busy: 160, steal: 11 }));
        assert_eq!(parse_proc_stat("cpu0 1 2 3 4\n"), None);
        assert_eq!(parse_proc_stat("cpu  x\n"), None);
        assert!(read().is_some(), "this test runs on Linux");
    }

    #[test]
    fn other_work_is_busy_minus_ours() {
        let a = MachineTicks { busy: 1000, steal: 0 };
        let b = MachineTicks { busy: 1300, steal: 5 };
        // 300 ticks at 100/s = 3 s busy over 2 s; ours 2.5 s → 0.25 cores of other work.
        let m = MachineLoad::between(a, b, 2_500_000_000, 2.0, 100);
        assert!((m.other_cores - 0.25).abs() < 1e-9, "{m:?}");
        assert!((m.steal_cores - 0.025).abs() < 1e-9);
        assert!(m.disturbed());
        // One tick of steal over a 400 ms run is the counter's step, not a
        // disturbance; five ticks are.
        let t = MachineTicks { busy: 1000, steal: 0 };
        let one = MachineLoad::between(t, MachineTicks { busy: 1000, steal: 1 }, 0, 0.4, 100);
        assert!((one.steal_cores - 0.025).abs() < 1e-9 && !one.disturbed(), "{one:?}");
        let five = MachineLoad::between(t, MachineTicks { busy: 1000, steal: 5 }, 0, 0.4, 100);
        assert!(five.disturbed(), "{five:?}");
        let quiet = MachineLoad::between(a, b, 3_000_000_000, 2.0, 100);
        assert_eq!(quiet.other_cores, 0.0);
        assert!(
            !MachineLoad {
                other_cores: 0.1,
                steal_cores: 0.0
            }
            .disturbed()
        );
    }
}
