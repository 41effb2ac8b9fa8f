//! `--count-allocs`: a global allocator that counts allocations and their bytes while a
//! window is open. Each thread counts into thread-local cells (no shared atomic is written
//! on the hot path); a thread adds its cells to the totals when it stops (tokio's
//! `on_thread_stop` for worker threads, [`flush_thread`] for the thread that ran the sample).
//!
//!
//! `channel-bench memory` opens a second window, over [`LIVE`]: the bytes allocated and not yet
//! freed, and their high-water mark. A free may come on another thread than its allocation, so
//! these are two process-wide atomics, written only while that window is open: whatever any
//! thread allocates or frees meanwhile is counted, which is why a memory measurement runs alone
//! in its process, one channel at a time (`run::memory`).
//!
//! The binary installs [`CountingAllocator`]; without it the counts stay zero. With both windows
//! closed, each allocation and free costs one relaxed load of a flag that is never written meanwhile.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, AtomicU8, AtomicU64, Ordering};

/// The system allocator, counting while a window is open.
pub struct CountingAllocator;

/// Which windows are open: [`COUNTING`], [`LIVE_BYTES`], both or neither.
static WINDOWS: AtomicU8 = AtomicU8::new(0);
/// The `--count-allocs` window: allocations counted per thread, into [`totals`].
pub const COUNTING: u8 = 1;
/// The `memory` window: live bytes counted process-wide, into [`LIVE`].
pub const LIVE_BYTES: u8 = 2;
static TOTAL_ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static TOTAL_BYTES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    // Const-initialised and without a destructor: usable from inside the allocator at any time.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

/// An allocation of `bytes` (or a `realloc` to that size, from `old` bytes).
#[inline]
fn count(bytes: usize, old: usize) {
    let windows = WINDOWS.load(Ordering::Relaxed);
    if windows & COUNTING != 0 {
        let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
        let _ = BYTES.try_with(|total| total.set(total.get() + bytes as u64));
    }
    if windows & LIVE_BYTES != 0 {
        LIVE.add(bytes as i64 - old as i64);
    }
}

// SAFETY: every call is passed unchanged to the system allocator; counting touches only
// thread-local cells and atomics, and never allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size(), 0);
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size(), 0);
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size, layout.size());
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if WINDOWS.load(Ordering::Relaxed) & LIVE_BYTES != 0 {
            LIVE.add(-(layout.size() as i64));
        }
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Bytes allocated and not yet freed since [`LiveBytes::reset`], and the most there were at any
/// moment since [`LiveBytes::reset_peak`]: every change is one atomic add, and the total it
/// leads to is offered to the peak, so the peak is the true maximum of the running total
/// whichever threads allocate and free.
#[derive(Debug)]
pub struct LiveBytes {
    now: AtomicI64,
    peak: AtomicI64,
}

/// The live bytes of the process, counted while [`set_window`] holds [`LIVE_BYTES`] open.
pub static LIVE: LiveBytes = LiveBytes::new();

impl LiveBytes {
    /// Zero bytes, zero peak.
    const fn new() -> Self {
        Self { now: AtomicI64::new(0), peak: AtomicI64::new(0) }
    }

    /// Adds `bytes` (negative for a free) and raises the peak to the new total.
    #[inline]
    pub fn add(&self, bytes: i64) {
        let total = self.now.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(total, Ordering::Relaxed);
    }

    /// The bytes live now: allocated minus freed since [`LiveBytes::reset`] (negative when
    /// more was freed than allocated meanwhile).
    pub fn now(&self) -> i64 {
        self.now.load(Ordering::Relaxed)
    }

    /// The most bytes live at any moment since [`LiveBytes::reset_peak`].
    pub fn peak(&self) -> i64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// Zero bytes live and a zero peak: what is allocated from here on is counted from nothing.
    pub fn reset(&self) {
        self.now.store(0, Ordering::Relaxed);
        self.peak.store(0, Ordering::Relaxed);
    }

    /// The peak lowered to the bytes live now.
    pub fn reset_peak(&self) {
        self.peak.store(self.now(), Ordering::Relaxed);
    }
}

/// Opens (`true`) or closes `window`: [`COUNTING`], or [`LIVE_BYTES`], in which every allocation
/// and free in the process changes [`LIVE`].
pub fn set_window(window: u8, open: bool) {
    if open {
        WINDOWS.fetch_or(window, Ordering::SeqCst);
    } else {
        WINDOWS.fetch_and(!window, Ordering::SeqCst);
    }
}

/// Allocations counted over one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct AllocCount {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    pub allocations: u64,
    /// Bytes they asked for (a `realloc` counts its new size).
    pub bytes: u64,
}

/// Empties the totals and this thread's cells; call before the threads of a sample start.
pub fn reset() {
    flush_thread();
    TOTAL_ALLOCATIONS.store(0, Ordering::Relaxed);
    TOTAL_BYTES.store(0, Ordering::Relaxed);
}

/// Adds this thread's cells to the totals and empties them.
pub fn flush_thread() {
    let allocations = ALLOCATIONS.try_with(|count| count.replace(0)).unwrap_or(0);
    let bytes = BYTES.try_with(|total| total.replace(0)).unwrap_or(0);
    TOTAL_ALLOCATIONS.fetch_add(allocations, Ordering::Relaxed);
    TOTAL_BYTES.fetch_add(bytes, Ordering::Relaxed);
}

/// The totals flushed since [`reset`]; read once every thread of the sample has stopped.
pub fn totals() -> AllocCount {
    AllocCount { allocations: TOTAL_ALLOCATIONS.load(Ordering::Relaxed), bytes: TOTAL_BYTES.load(Ordering::Relaxed) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_bytes_are_allocations_less_frees_and_the_peak_their_highest_total() {
        let live = LiveBytes::new();
        live.add(100);
        live.add(48);
        live.add(-100);
        assert_eq!((live.now(), live.peak()), (48, 148));
        // A realloc from 48 to 1,200 bytes adds the difference.
        live.add(1200 - 48);
        assert_eq!((live.now(), live.peak()), (1200, 1200));
        live.reset_peak();
        live.add(-1200);
        assert_eq!((live.now(), live.peak()), (0, 1200));
        live.reset();
        live.add(-16);
        assert_eq!((live.now(), live.peak()), (-16, 0), "a free of what was allocated before the reset");
    }

    #[test]
    fn the_allocator_counts_live_bytes_only_while_the_window_is_open() {
        // The test binary does not install the allocator: only the calls made here reach it, and
        // no other test opens the window.
        let (small, large) = (Layout::from_size_align(24, 8).unwrap(), Layout::from_size_align(1000, 8).unwrap());
        LIVE.reset();
        set_window(LIVE_BYTES, true);
        // SAFETY: each block is freed once, with the layout it was allocated with.
        unsafe {
            let a = CountingAllocator.alloc(small);
            let b = CountingAllocator.alloc_zeroed(large);
            assert_eq!(LIVE.now(), 1024);
            let a = CountingAllocator.realloc(a, small, 40);
            assert_eq!(LIVE.now(), 1040);
            CountingAllocator.dealloc(b, large);
            assert_eq!((LIVE.now(), LIVE.peak()), (40, 1040));
            set_window(LIVE_BYTES, false);
            CountingAllocator.dealloc(a, Layout::from_size_align(40, 8).unwrap());
        }
        assert_eq!(LIVE.now(), 40, "the free after the window closed is not counted");
    }
}
