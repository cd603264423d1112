//! A std-only command-line flag parser shared by every subcommand.
//!
//! Flags are read lazily by name, in both `--flag value` and `--flag=value`
//! form; [`Args::finish`] then rejects whatever nobody asked for, so a typo
//! (`--conncurrency 8`) is an error naming the flag, never silently ignored.
//!
//! ```
//! use wirebench::cli::Args;
//! let mut a = Args::new(["--count=3", "json", "--verbose"]);
//! assert_eq!(a.parse::<usize>("--count").unwrap(), Some(3));
//! assert!(a.switch("--verbose"));
//! assert_eq!(a.positional(), vec!["json".to_string()]);
//! a.finish().unwrap();
//! ```

use std::str::FromStr;

/// The arguments of one subcommand, consumed flag by flag.
#[derive(Debug, Clone)]
pub struct Args {
    tokens: Vec<Option<String>>,
}

impl Args {
    pub fn new<I, S>(args: I) -> Args
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Args {
            tokens: args.into_iter().map(|s| Some(s.into())).collect(),
        }
    }

    /// The raw value of `--name` (last occurrence wins), consuming it.
    pub fn value(&mut self, name: &str) -> Result<Option<String>, String> {
        let mut found = None;
        let mut i = 0;
        while i < self.tokens.len() {
            let Some(tok) = self.tokens[i].as_deref() else {
                i += 1;
                continue;
            };
            if tok == name {
                match self.tokens.get(i + 1).cloned().flatten() {
                    Some(v) if !v.starts_with("--") => {
                        found = Some(v);
                        self.tokens[i] = None;
                        self.tokens[i + 1] = None;
                        i += 2;
                        continue;
                    }
                    _ => return Err(format!("{name} needs a value")),
                }
            } else if let Some(v) = tok.strip_prefix(name).and_then(|rest| rest.strip_prefix('=')) {
                found = Some(v.to_string());
                self.tokens[i] = None;
            }
            i += 1;
        }
        Ok(found)
    }

    /// `--name` parsed as `T`; the error names the flag and the bad value.
    pub fn parse<T: FromStr>(&mut self, name: &str) -> Result<Option<T>, String>
    where
        T::Err: std::fmt::Display,
    {
        match self.value(name)? {
            None => Ok(None),
            Some(v) => v
                .parse::<T>()
                .map(Some)
                .map_err(|e| format!("{name}: invalid value {v:?}: {e}")),
        }
    }

    /// `--name` parsed as `T`, or `default` when absent.
    pub fn parse_or<T: FromStr>(&mut self, name: &str, default: T) -> Result<T, String>
    where
        T::Err: std::fmt::Display,
    {
        Ok(self.parse(name)?.unwrap_or(default))
    }

    /// `--name` as a duration ([`parse_duration`]), or `default` when absent.
    pub fn duration_or(&mut self, name: &str, default: std::time::Duration) -> Result<std::time::Duration, String> {
        match self.value(name)? {
            Some(v) => parse_duration(&v).map_err(|e| format!("{name}: {e}")),
            None => Ok(default),
        }
    }

    /// A comma-separated list (`--counts 1,100,1000`), each item parsed as `T`.
    pub fn list<T: FromStr>(&mut self, name: &str) -> Result<Option<Vec<T>>, String>
    where
        T::Err: std::fmt::Display,
    {
        match self.value(name)? {
            None => Ok(None),
            Some(v) => v
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| {
                    s.trim()
                        .parse::<T>()
                        .map_err(|e| format!("{name}: invalid item {s:?}: {e}"))
                })
                .collect::<Result<Vec<T>, String>>()
                .map(Some),
        }
    }

    /// A boolean flag without a value; true when present.
    pub fn switch(&mut self, name: &str) -> bool {
        let mut found = false;
        for t in &mut self.tokens {
            if t.as_deref() == Some(name) {
                *t = None;
                found = true;
            }
        }
        found
    }

    /// The first token, consumed, when it is a subcommand word or `--help`/`-h`
    /// (`wirebench schema derive ...`).
    pub fn subcommand(&mut self) -> Option<String> {
        let first = self.tokens.iter_mut().find(|t| t.is_some())?;
        match first.as_deref() {
            Some("--help" | "-h") => first.take(),
            Some(t) if !t.starts_with("--") => first.take(),
            _ => None,
        }
    }

    /// Tokens that are not flags (call after all flags were read), consuming them.
    pub fn positional(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for t in &mut self.tokens {
            if t.as_deref().is_some_and(|s| !s.starts_with("--")) {
                out.extend(t.take());
            }
        }
        out
    }

    /// Error if any token was not consumed: names the first unknown flag.
    pub fn finish(&self) -> Result<(), String> {
        match self.tokens.iter().flatten().next() {
            None => Ok(()),
            Some(t) if t.starts_with("--") => Err(format!("unknown flag {t}")),
            Some(t) => Err(format!("unexpected argument {t:?}")),
        }
    }
}

/// The exit statuses of the `wirebench` binary, with what each means
/// (docs/SPEC.md, "Exit status"; `tests/facts/` holds the docs to this list).
pub const EXIT_STATUSES: [(u8, &str); 3] = [
    (EXIT_OK, "the command did what it was asked"),
    (
        EXIT_FAILED_REQUESTS,
        "`load`: the runs completed and at least one request failed; `compare --fail-over PCT` or `ab --fail-over PCT`: a significant regression beyond PCT",
    ),
    (
        EXIT_USAGE,
        "a usage error (a bad flag or value), or the command could not run",
    ),
];
/// The command did what it was asked.
pub const EXIT_OK: u8 = 0;
/// `load` ran and at least one request failed, or `compare --fail-over` /
/// `ab --fail-over` found a significant regression beyond its threshold.
pub const EXIT_FAILED_REQUESTS: u8 = 1;
/// A usage error, or the command could not run.
pub const EXIT_USAGE: u8 = 2;

/// Parses a duration like `300ms`, `1s`, `2.5s`, `1m`, `10us`.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("invalid duration {s:?}: expected e.g. 300ms, 1s, 2m"))?;
    let secs = match unit {
        "ns" => n / 1e9,
        "us" | "µs" => n / 1e6,
        "ms" => n / 1e3,
        "s" | "" => n,
        "m" => n * 60.0,
        _ => {
            return Err(format!(
                "invalid duration unit {unit:?} in {s:?}: expected ns, us, ms, s or m"
            ));
        }
    };
    if !secs.is_finite() || !(0.0..=1e9).contains(&secs) {
        return Err(format!("duration {s:?} out of range"));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn both_flag_forms_and_unknown_flags() {
        let mut a = Args::new(["--rounds", "5", "--duration=2s", "--oops"]);
        assert_eq!(a.parse::<u32>("--rounds").unwrap(), Some(5));
        assert_eq!(a.value("--duration").unwrap().as_deref(), Some("2s"));
        assert_eq!(a.finish().unwrap_err(), "unknown flag --oops");
    }

    #[test]
    fn errors_name_the_flag() {
        let mut a = Args::new(["--rounds", "five"]);
        assert_eq!(
            a.parse::<u32>("--rounds").unwrap_err(),
            "--rounds: invalid value \"five\": invalid digit found in string"
        );
        let mut a = Args::new(["--rounds"]);
        assert_eq!(a.value("--rounds").unwrap_err(), "--rounds needs a value");
    }

    #[test]
    fn prefix_of_another_flag_is_not_a_match() {
        let mut a = Args::new(["--counts=1,2"]);
        assert_eq!(a.value("--count").unwrap(), None);
        assert_eq!(a.list::<u32>("--counts").unwrap(), Some(vec![1, 2]));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("300ms").unwrap(), Duration::from_millis(300));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("3h").is_err());
    }
}
