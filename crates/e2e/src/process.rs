//! Child processes that cannot outlive the test, and free loopback ports.

use std::net::{SocketAddr, TcpListener};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};

/// A child started in a process group of its own. Dropping the guard kills
/// the whole group: chromedriver's Chromium and its helpers die with it even
/// when a failed assertion skips the orderly shutdown.
pub struct ChildGuard {
    name: String,
    child: Child,
}

impl ChildGuard {
    pub fn spawn(name: &str, mut command: Command) -> ChildGuard {
        command.process_group(0);
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name} ({command:?}): {e}"));
        ChildGuard {
            name: name.to_owned(),
            child,
        }
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Its standard output, when it was piped (once).
    pub fn take_stdout(&mut self) -> Option<std::process::ChildStdout> {
        self.child.stdout.take()
    }

    /// `Some(status)` once the process has exited.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child
            .try_wait()
            .unwrap_or_else(|e| panic!("cannot poll {}: {e}", self.name))
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if self.exited().is_some() {
            return;
        }
        let Ok(group) = i32::try_from(self.child.id()) else {
            let _ = self.child.kill();
            let _ = self.child.wait();
            return;
        };
        // SAFETY: kill(2) takes plain integers; a negative pid names the
        // process group this guard created with process_group(0).
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

/// A loopback port free right now. The port is released before the child
/// binds it, so callers retry when another process takes it in between.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .expect("bind a free loopback port");
    listener.local_addr().expect("local address").port()
}
