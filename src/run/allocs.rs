//! `--count-allocs`: a global allocator that counts allocations and their bytes while a
//! window is open. Each thread counts into thread-local cells (no shared atomic is written
//! on the hot path); a thread adds its cells to the totals when it stops (tokio's
//! `on_thread_stop` for worker threads, [`flush_thread`] for the thread that ran the sample).
//!
//! The binary installs [`CountingAllocator`]; without it the counts stay zero. Closed, the
//! window costs each allocation one relaxed load of a flag that is never written meanwhile.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The system allocator, counting while the window is open.
pub struct CountingAllocator;

static WINDOW_OPEN: AtomicBool = AtomicBool::new(false);
static TOTAL_ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static TOTAL_BYTES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    // Const-initialised and without a destructor: usable from inside the allocator at any time.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

#[inline]
fn count(bytes: usize) {
    if WINDOW_OPEN.load(Ordering::Relaxed) {
        let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
        let _ = BYTES.try_with(|total| total.set(total.get() + bytes as u64));
    }
}

// SAFETY: every call is passed unchanged to the system allocator; counting touches only
// thread-local cells and never allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
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

/// Opens (`true`) or closes the counting window.
pub fn set_window(open: bool) {
    WINDOW_OPEN.store(open, Ordering::SeqCst);
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
