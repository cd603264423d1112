//! "Refused without allocating", proved without a custom allocator (and so
//! without `unsafe` in tests): the test binary re-runs one of its own ignored
//! tests with its address space capped at 1 GiB, where allocating 2 GiB fails
//! and aborts the process.

/// Set in the child's environment so it knows the limit is in force.
const LIMITED: &str = "WIREBENCH_MEMORY_LIMITED";

/// Runs the ignored test `child` of the current test binary under
/// `ulimit -v 1048576` and asserts that it passed.
#[cfg(unix)]
pub fn run_child_under_1gib(child: &str) {
    let exe = std::env::current_exe().unwrap();
    let script = format!(r#"ulimit -v 1048576 && exec "$0" --exact {child} --ignored --test-threads=1"#);
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .arg(&exe)
        .env(LIMITED, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child under a 1 GiB address-space limit: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// In the child: the limit is really in force, so the test could fail if the
/// decoder allocated what a hostile length asks for.
pub fn assert_limit_in_force() {
    if std::env::var_os(LIMITED).is_some() {
        assert!(
            Vec::<u8>::new().try_reserve(1 << 31).is_err(),
            "2 GiB allocation succeeded"
        );
    }
}
