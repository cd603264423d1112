//! The C library calls the server makes that std does not wrap, each with
//! its reason:
//!
//! - `listen(2)` again with a chosen backlog ([`set_backlog`]: std's `bind`
//!   passes 128); `getsockopt(2)` of a listener for `/metrics` and tests:
//!   `TCP_INFO` ([`listen_queue`]: `tcpi_unacked`/`tcpi_sacked` hold its queue
//!   length and backlog) and `SO_MEMINFO` ([`drops`]: its last word);
//! - `getrlimit`/`setrlimit(2)` ([`raise_open_files`]) so the connection cap fits;
//! - `setpriority(2)`, `sched_setscheduler(2)` on the calling thread (Linux
//!   keeps both per thread; `who`/`pid` 0 is the caller), read back from
//!   `/proc/thread-self/stat` ([`thread_nice`], [`thread_sched`]);
//! - `shutdown(2)` of a read side by descriptor ([`shutdown_read`]: a worker's
//!   [`super::shared::Slot`] keeps the descriptor, not the socket);
//! - `epoll(7)` ([`Epoll`]) and `recv(2)` with `MSG_DONTWAIT` ([`recv_nowait`]).
//!
//! Every call takes a descriptor borrowed from a live std socket and writes at
//! most the buffer length it is given; errors are `io::Error`s from `errno`.
//! The declarations are std's own C library (glibc or musl), already linked.

#![allow(unsafe_code)]

use std::io;
use std::os::fd::AsRawFd;

// Linux constants (include/uapi/asm-generic/socket.h, include/uapi/linux/tcp.h, netinet/in.h).
const SOL_SOCKET: i32 = 1;
const SO_MEMINFO: i32 = 55;
const IPPROTO_TCP: i32 = 6;
const TCP_INFO: i32 = 11;
/// `SK_MEMINFO_VARS`: words of the `SO_MEMINFO` answer; `SK_MEMINFO_DROPS` is the last.
const MEMINFO_WORDS: usize = 9;
const MEMINFO_DROPS: usize = 8;
/// Bytes of `struct tcp_info` read: up to and including `tcpi_sacked`
/// (8 one-byte fields, then `u32`s: rto, ato, snd_mss, rcv_mss, unacked, sacked).
const TCP_INFO_LEN: usize = 32;
const TCPI_UNACKED: usize = 24;
const TCPI_SACKED: usize = 28;
/// `tcpi_state` of a listening socket (`TCP_LISTEN` in include/net/tcp_states.h).
const TCP_LISTEN: u8 = 10;

// SAFETY: these are the POSIX/Linux prototypes of `listen` and `getsockopt`
// (int, int / int, int, int, void *, socklen_t *), with `socklen_t` = u32 on
// every Linux ABI; the callers below pass a live descriptor and a buffer of
// exactly the length they state. `sched_setscheduler` is
// (pid_t, int, const struct sched_param *), `pid_t` = i32 on Linux. `recv`
// is (int, void *, size_t, int) -> ssize_t: usize and isize on Linux.
unsafe extern "C" {
    fn listen(fd: i32, backlog: i32) -> i32;
    fn getsockopt(fd: i32, level: i32, name: i32, value: *mut u8, len: *mut u32) -> i32;
    fn getrlimit(resource: i32, rlim: *mut Rlimit) -> i32;
    fn setrlimit(resource: i32, rlim: *const Rlimit) -> i32;
    fn setpriority(which: i32, who: u32, prio: i32) -> i32;
    fn sched_setscheduler(pid: i32, policy: i32, param: *const SchedParam) -> i32;
    fn shutdown(fd: i32, how: i32) -> i32;
    fn epoll_create1(flags: i32) -> i32;
    fn epoll_ctl(epfd: i32, op: i32, fd: i32, event: *mut EpollEvent) -> i32;
    fn epoll_wait(epfd: i32, events: *mut EpollEvent, maxevents: i32, timeout: i32) -> i32;
    fn recv(fd: i32, buf: *mut u8, len: usize, flags: i32) -> isize;
}

/// A C library call's return code as a result: 0 is success, anything
/// else the error the call left in `errno`.
fn os_result(rc: i32) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// `SHUT_RD` (sys/socket.h).
const SHUT_RD: i32 = 0;

/// Shuts down the read side of the socket `fd`: a `read` blocked on it, or
/// the next one, returns end-of-file. The caller guarantees that `fd` is
/// the descriptor of a socket it keeps open for the call (a closed and
/// reused descriptor would shut down an unrelated socket);
/// [`super::shared::Slot`] does by its lock.
pub fn shutdown_read(fd: std::os::fd::RawFd) -> io::Result<()> {
    // SAFETY: `shutdown` reads only its two integer arguments and touches no
    // memory of ours; an invalid descriptor is an error (EBADF, ENOTSOCK),
    // never undefined behaviour.
    let rc = unsafe { shutdown(fd, SHUT_RD) };
    os_result(rc)
}

/// `MSG_DONTWAIT` (bits/socket.h).
const MSG_DONTWAIT: i32 = 0x40;

/// One read from `stream` that does not wait, whether the socket blocks or
/// not: the bytes there now, `Ok(0)` at end-of-file, `WouldBlock` when
/// none are there yet.
pub fn recv_nowait(stream: &impl AsRawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes and the kernel
    // writes at most that many; the descriptor is borrowed from a live
    // owner (a bad one is EBADF/ENOTSOCK, never undefined behaviour).
    let n = unsafe { recv(stream.as_raw_fd(), buf.as_mut_ptr(), buf.len(), MSG_DONTWAIT) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

// epoll constants (include/uapi/linux/eventpoll.h).
const EPOLL_CLOEXEC: i32 = 0o2_000_000;
const EPOLL_CTL_ADD: i32 = 1;
const EPOLLIN: u32 = 0x001;
const EPOLLERR: u32 = 0x008;
const EPOLLHUP: u32 = 0x010;
const EPOLLRDHUP: u32 = 0x2000;
const EPOLLET: u32 = 1 << 31;

/// `struct epoll_event`: packed on x86-64 (the kernel's `EPOLL_PACKED`), natural elsewhere.
#[cfg_attr(target_arch = "x86_64", repr(C, packed))]
#[cfg_attr(not(target_arch = "x86_64"), repr(C))]
#[derive(Clone, Copy, Default)]
pub struct EpollEvent {
    events: u32,
    data: u64,
}

impl EpollEvent {
    /// The token the descriptor was registered with.
    pub fn token(&self) -> u64 {
        self.data
    }
}

impl std::fmt::Debug for EpollEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (events, data) = (self.events, self.data);
        write!(f, "EpollEvent {{ events: {events:#x}, token: {data} }}")
    }
}

/// An epoll instance. A descriptor is registered edge-triggered
/// ([`Epoll::watch`]); closing it removes it.
#[derive(Debug)]
pub struct Epoll {
    fd: std::os::fd::OwnedFd,
}

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: `epoll_create1` reads only its integer argument.
        let fd = unsafe { epoll_create1(EPOLL_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is a new descriptor that nothing else owns.
        Ok(Epoll {
            fd: unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) },
        })
    }

    /// Registers `fd` edge-triggered with `token`: every arrival of bytes
    /// (or end-of-file, or an error) from now on is reported once; bytes
    /// already there when it is registered are reported too.
    pub fn watch(&self, fd: &impl AsRawFd, token: u64) -> io::Result<()> {
        let mut ev = EpollEvent {
            events: EPOLLIN | EPOLLRDHUP | EPOLLET,
            data: token,
        };
        // SAFETY: `ev` is a live `struct epoll_event` the kernel only reads;
        // both descriptors are borrowed from live owners; a bad one is an
        // error (EBADF, EEXIST), never UB.
        let rc = unsafe { epoll_ctl(self.fd.as_raw_fd(), EPOLL_CTL_ADD, fd.as_raw_fd(), &mut ev) };
        os_result(rc)
    }

    /// Waits up to `timeout_ms` (negative: forever) for ready descriptors;
    /// returns how many of `events` were filled. `EINTR` is zero events.
    pub fn wait(&self, events: &mut [EpollEvent], timeout_ms: i32) -> io::Result<usize> {
        let max = i32::try_from(events.len()).unwrap_or(i32::MAX);
        // SAFETY: `events` is valid for writes of `max` events (its own
        // length, at most); the kernel writes at most `max` of them.
        let n = unsafe { epoll_wait(self.fd.as_raw_fd(), events.as_mut_ptr(), max, timeout_ms) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted {
                Ok(0)
            } else {
                Err(e)
            };
        }
        Ok(n as usize)
    }
}

/// Whether an event reports a hang-up or an error (besides readable bytes).
pub fn hung_up(ev: &EpollEvent) -> bool {
    ev.events & (EPOLLERR | EPOLLHUP | EPOLLRDHUP) != 0
}

/// `PRIO_PROCESS` (include/uapi/linux/resource.h).
const PRIO_PROCESS: i32 = 0;

/// Sets the calling thread's nice value (-20 highest priority, 19 lowest).
/// Lowering it below the current value needs `CAP_SYS_NICE` (or
/// `RLIMIT_NICE`): without it the error is `PermissionDenied` and the
/// value stays as it was.
pub fn set_thread_nice(nice: i32) -> io::Result<()> {
    // SAFETY: `setpriority` reads only its three integer arguments; `who = 0`
    // with `PRIO_PROCESS` is the calling thread on Linux.
    let rc = unsafe { setpriority(PRIO_PROCESS, 0, nice) };
    os_result(rc)
}

/// The calling thread's nice value, from `/proc/thread-self/stat`.
pub fn thread_nice() -> io::Result<i32> {
    own_stat(|stat| stat_field(stat, 19), "nice")
}

/// Field `n` (counted from 1, as in proc(5)) of a `/proc/…/stat` line, for
/// `n` ≥ 3: counted after the parenthesised command name, which may hold
/// spaces and parentheses.
fn stat_field(stat: &str, n: usize) -> Option<i32> {
    let (_, rest) = stat.rsplit_once(')')?;
    // Field 3 (state) is the first after the name.
    rest.split_ascii_whitespace().nth(n.checked_sub(3)?)?.parse().ok()
}

/// `parse` applied to the calling thread's `/proc/thread-self/stat`; an
/// `InvalidData` error naming `what` when it finds nothing.
fn own_stat<T>(parse: fn(&str) -> Option<T>, what: &str) -> io::Result<T> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat")?;
    parse(&stat).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("no {what} field in /proc/thread-self/stat"),
        )
    })
}

/// `struct sched_param` (sched.h): one `int`, the real-time priority.
#[repr(C)]
struct SchedParam {
    priority: i32,
}

/// `SCHED_OTHER` and `SCHED_RR` (include/uapi/linux/sched.h).
const SCHED_OTHER: i32 = 0;
const SCHED_RR: i32 = 2;

/// How the kernel schedules a thread (sched(7)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sched {
    /// `SCHED_OTHER`, the fair class, at a nice value: runnable threads
    /// share the core by weight, picked by virtual deadline.
    Fair(i32),
    /// `SCHED_RR`, the real-time round-robin class, at a priority (1–99):
    /// a thread runs before every fair one; among equal priorities, a thread
    /// that wakes queues behind those already runnable.
    RoundRobin(i32),
}

impl std::fmt::Display for Sched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sched::Fair(nice) => write!(f, "nice {nice}"),
            Sched::RoundRobin(priority) => write!(f, "SCHED_RR priority {priority}"),
        }
    }
}

/// Moves the calling thread to `sched`. [`Sched::RoundRobin`]: entering the
/// real-time class or raising its priority needs `CAP_SYS_NICE` (or
/// `RLIMIT_RTPRIO`), else `PermissionDenied` and nothing changes.
/// [`Sched::Fair`] sets the nice value only: a thread under `chrt -b` keeps
/// `SCHED_BATCH`, one under `chrt -r` stays real-time (the server never moves
/// a thread out of the real-time class).
pub fn set_thread_sched(sched: Sched) -> io::Result<()> {
    let priority = match sched {
        Sched::Fair(nice) => return set_thread_nice(nice),
        Sched::RoundRobin(priority) => priority,
    };
    let param = SchedParam { priority };
    // SAFETY: `param` is a live `struct sched_param` that the call only
    // reads; `pid = 0` is the calling thread on Linux.
    let rc = unsafe { sched_setscheduler(0, SCHED_RR, &param) };
    os_result(rc)
}

/// The calling thread's scheduling, from `/proc/thread-self/stat`.
pub fn thread_sched() -> io::Result<Sched> {
    own_stat(sched_of_stat, "policy")
}

/// The scheduling in a `/proc/…/stat` line: fields 41 (`policy`), 40
/// (`rt_priority`) and 19 (`nice`). `None` for a class other than these two.
pub fn sched_of_stat(stat: &str) -> Option<Sched> {
    match stat_field(stat, 41)? {
        SCHED_OTHER => Some(Sched::Fair(stat_field(stat, 19)?)),
        SCHED_RR => Some(Sched::RoundRobin(stat_field(stat, 40)?)),
        _ => None,
    }
}

/// `struct rlimit`: two `rlim_t` (`unsigned long`, 64 bits on the 64-bit
/// Linux targets this server builds for; the assertion below checks it).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct Rlimit {
    cur: u64,
    max: u64,
}
const _: () = assert!(std::mem::size_of::<std::ffi::c_ulong>() == 8);

/// `RLIMIT_NOFILE` (include/uapi/asm-generic/resource.h; the same on x86-64 and AArch64).
const RLIMIT_NOFILE: i32 = 7;

/// The open-file limits now: (soft, hard).
pub fn open_files() -> io::Result<(u64, u64)> {
    let mut r = Rlimit { cur: 0, max: 0 };
    // SAFETY: `r` is a live, writable `struct rlimit`; getrlimit writes exactly one.
    let rc = unsafe { getrlimit(RLIMIT_NOFILE, &mut r) };
    os_result(rc)?;
    Ok((r.cur, r.max))
}

/// Raises the soft open-file limit to `want` (at most the hard limit; never
/// lowers it). Returns the soft limit after the call.
pub fn raise_open_files(want: u64) -> io::Result<u64> {
    let (soft, hard) = open_files()?;
    let target = want.min(hard);
    if target <= soft {
        return Ok(soft);
    }
    let r = Rlimit { cur: target, max: hard };
    // SAFETY: `r` is a live `struct rlimit` that setrlimit only reads.
    let rc = unsafe { setrlimit(RLIMIT_NOFILE, &r) };
    os_result(rc)?;
    Ok(open_files()?.0)
}

/// Sets the accept-queue capacity of an already listening socket. Linux
/// silently caps it at `net.core.somaxconn`; read the effective value back
/// with [`listen_queue`].
pub fn set_backlog(socket: &impl AsRawFd, backlog: u32) -> io::Result<()> {
    let backlog = i32::try_from(backlog).unwrap_or(i32::MAX);
    // SAFETY: `listen` reads only its two integer arguments; the descriptor
    // belongs to `socket`, which the caller keeps alive for the call. On a
    // socket already listening Linux only updates its backlog.
    let rc = unsafe { listen(socket.as_raw_fd(), backlog) };
    os_result(rc)
}

/// A listening socket's accept queue as the kernel reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListenQueue {
    /// Connections fully established and waiting for `accept` now.
    pub queued: u32,
    /// The queue's capacity: the backlog after the kernel's `somaxconn` cap.
    pub backlog: u32,
}

/// `queued` and `backlog` of a listening socket (`TCP_INFO`); an error when
/// the socket is not a listening TCP socket.
pub fn listen_queue(socket: &impl AsRawFd) -> io::Result<ListenQueue> {
    let mut info = [0u8; TCP_INFO_LEN];
    let got = sockopt(socket, IPPROTO_TCP, TCP_INFO, &mut info)?;
    if got < TCP_INFO_LEN || info[0] != TCP_LISTEN {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a listening TCP socket",
        ));
    }
    Ok(ListenQueue {
        queued: ne_u32(&info, TCPI_UNACKED),
        backlog: ne_u32(&info, TCPI_SACKED),
    })
}

/// Packets the socket dropped since it was created (`SO_MEMINFO`, Linux ≥ 4.12);
/// for a listener, each connect refused because its accept queue was full.
pub fn drops(socket: &impl AsRawFd) -> io::Result<u32> {
    let mut words = [0u8; MEMINFO_WORDS * 4];
    let got = sockopt(socket, SOL_SOCKET, SO_MEMINFO, &mut words)?;
    let at = MEMINFO_DROPS * 4;
    if got < at + 4 {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "SO_MEMINFO without a drop count",
        ));
    }
    Ok(ne_u32(&words, at))
}

/// The native-endian `u32` at `at` of a buffer the kernel filled (the caller
/// checked its length).
fn ne_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

/// `getsockopt` into `buf`; the number of bytes the kernel wrote.
fn sockopt(socket: &impl AsRawFd, level: i32, name: i32, buf: &mut [u8]) -> io::Result<usize> {
    let mut len = u32::try_from(buf.len()).unwrap_or(u32::MAX);
    // SAFETY: `buf` is valid for writes of `len` bytes (its own length) and
    // `len` is a live u32; the kernel writes at most `len` bytes and stores
    // the count written back into `len`. The descriptor belongs to `socket`.
    let rc = unsafe { getsockopt(socket.as_raw_fd(), level, name, buf.as_mut_ptr(), &mut len) };
    os_result(rc)?;
    Ok((len as usize).min(buf.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn edge_triggered_reports_each_arrival_once_and_recv_nowait_does_not_wait() {
        use std::io::Write;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let ep = Epoll::new().unwrap();
        let mut evs = [EpollEvent::default(); 4];
        let mut buf = [0u8; 8];
        // A blocking socket with nothing to read: WouldBlock at once.
        let e = recv_nowait(&server, &mut buf).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock, "{e}");
        client.write_all(b"x").unwrap();
        // Bytes there before the registration are reported.
        std::thread::sleep(std::time::Duration::from_millis(20));
        ep.watch(&server, 42).unwrap();
        assert_eq!(ep.wait(&mut evs, 5000).unwrap(), 1);
        assert_eq!(evs[0].token(), 42);
        // Edge-triggered: still readable, but not reported again...
        assert_eq!(ep.wait(&mut evs, 0).unwrap(), 0);
        // ...until more bytes arrive, with no re-arming.
        client.write_all(b"y").unwrap();
        assert_eq!(ep.wait(&mut evs, 5000).unwrap(), 1);
        assert_eq!(evs[0].token(), 42);
        assert_eq!(recv_nowait(&server, &mut buf).unwrap(), 2);
        assert_eq!(&buf[..2], b"xy");
        // End-of-file: reported as a hang-up, and read as 0 bytes.
        drop(client);
        assert_eq!(ep.wait(&mut evs, 5000).unwrap(), 1);
        assert!(hung_up(&evs[0]), "{:?}", evs[0]);
        assert_eq!(recv_nowait(&server, &mut buf).unwrap(), 0);
        assert_eq!(ep.watch(&server, 1).unwrap_err().raw_os_error(), Some(17), "EEXIST");
        assert!(ep.wait(&mut [], 0).is_err(), "EINVAL: an empty buffer");
    }

    #[test]
    fn backlog_is_read_back_and_counts_queued_connections() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        assert_eq!(
            listen_queue(&listener).unwrap(),
            ListenQueue {
                queued: 0,
                backlog: 128
            }
        );
        set_backlog(&listener, 7).unwrap();
        assert_eq!(listen_queue(&listener).unwrap().backlog, 7);
        let _a = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let _b = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        assert_eq!(listen_queue(&listener).unwrap().queued, 2);
        assert_eq!(drops(&listener).unwrap(), 0);
        drop(listener.accept().unwrap());
        assert_eq!(listen_queue(&listener).unwrap().queued, 1);
    }

    #[test]
    fn shutdown_read_ends_a_read_with_end_of_file_and_refuses_a_bad_descriptor() {
        use std::io::{Read, Write};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        client.write_all(b"x").unwrap();
        let mut byte = [0u8; 1];
        assert_eq!((&server).read(&mut byte).unwrap(), 1, "the socket reads before");
        // A read on the socket, blocked or about to be, sees end-of-file.
        let reader = std::thread::spawn({
            let server = server.try_clone().unwrap();
            // A guard, not a measurement: without the shutdown the read
            // fails (WouldBlock) instead of hanging the test.
            server
                .set_read_timeout(Some(std::time::Duration::from_secs(30)))
                .unwrap();
            move || (&server).read(&mut [0u8; 1]).unwrap()
        });
        shutdown_read(server.as_raw_fd()).unwrap();
        assert_eq!(reader.join().unwrap(), 0, "end-of-file after shutdown_read");
        assert_eq!((&server).read(&mut byte).unwrap(), 0);
        // Only the read side: the socket still sends.
        (&server).write_all(b"y").unwrap();
        assert_eq!(client.read(&mut byte).unwrap(), 1);
        assert_eq!(&byte, b"y");
        let e = shutdown_read(-1).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(9), "EBADF: {e}");
    }

    #[test]
    fn the_open_file_limit_is_raised_towards_the_hard_limit_never_lowered() {
        let (soft, hard) = open_files().unwrap();
        assert!(soft <= hard);
        assert_eq!(raise_open_files(1).unwrap(), soft, "never lowered");
        let raised = raise_open_files(hard).unwrap();
        assert_eq!(raised, hard);
        assert_eq!(open_files().unwrap(), (hard, hard));
    }

    #[test]
    fn a_thread_s_nice_value_is_set_and_read_back() {
        let line = "42 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 20 -7 1 0";
        assert_eq!(stat_field(line, 19), Some(-7), "nice");
        assert_eq!(stat_field("42 (x) S 1 2", 19), None, "too few fields");
        std::thread::spawn(|| {
            let before = thread_nice().unwrap();
            // Raising the nice value (lowering the priority) is always
            // allowed; the kernel clamps it at 19 (`nice -n 19 cargo test`
            // starts this thread there).
            let raised = (before + 3).min(19);
            set_thread_nice(before + 3).unwrap();
            assert_eq!(thread_nice().unwrap(), raised);
            // Lowering it again needs the privilege: either it works, or it
            // is refused and the value stays.
            match set_thread_nice(before - 2) {
                Ok(()) => assert_eq!(thread_nice().unwrap(), before - 2),
                Err(e) => {
                    assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");
                    assert_eq!(thread_nice().unwrap(), raised);
                }
            }
        })
        .join()
        .unwrap();
        // Per thread: this thread's value did not move.
        assert!(thread_nice().is_ok());
    }

    #[test]
    fn a_thread_s_scheduling_is_set_and_read_back() {
        // Fields 3..=41 of a real line, the command name with spaces and parentheses.
        let mut line = String::from("42 (a (b) c) S");
        for n in 4..=41 {
            let v = match n {
                19 => "-7",
                40 => "3",
                41 => "2",
                _ => "0",
            };
            line.push(' ');
            line.push_str(v);
        }
        assert_eq!(sched_of_stat(&line), Some(Sched::RoundRobin(3)));
        let fair = line.replace(" 3 2", " 0 0");
        assert_eq!(sched_of_stat(&fair), Some(Sched::Fair(-7)));
        assert_eq!(
            sched_of_stat(&line.replace(" 3 2", " 0 5")),
            None,
            "SCHED_IDLE is neither"
        );
        assert_eq!(sched_of_stat("42 (x) S 1 2"), None, "too few fields");
        std::thread::spawn(|| {
            let before = thread_sched().unwrap();
            assert!(
                matches!(before, Sched::Fair(_)),
                "tests run in the fair class: {before:?}"
            );
            match set_thread_sched(Sched::RoundRobin(1)) {
                Ok(()) => {
                    assert_eq!(thread_sched().unwrap(), Sched::RoundRobin(1));
                    // `Fair` sets only the nice value: the thread stays
                    // real-time (it ends with this test).
                    set_thread_sched(Sched::Fair(3)).unwrap();
                    assert_eq!(thread_sched().unwrap(), Sched::RoundRobin(1));
                }
                Err(e) => {
                    assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");
                    assert_eq!(thread_sched().unwrap(), before, "a refusal changes nothing");
                }
            }
            let e = set_thread_sched(Sched::RoundRobin(100)).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "priority beyond 99: {e}");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_socket_that_is_not_listening_is_an_error() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let stream = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let e = listen_queue(&stream).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        assert!(listen_queue(&udp).is_err());
        assert!(set_backlog(&udp, 10).is_err(), "listen(2) on UDP fails with EOPNOTSUPP");
    }
}
