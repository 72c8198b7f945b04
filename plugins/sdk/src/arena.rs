//! A bump allocator for components whose instance lives for one call.
//!
//! The host makes a fresh instance for each request and drops it after the
//! answer (resetting its memory), so most of what a request allocates is
//! never needed back before the instance ends. General-purpose `malloc`
//! (wasi-libc's dlmalloc) still pays for bins, headers and coalescing on every
//! allocation and free; bumping instead saves about 4% of a contact create's
//! instructions and 6% of a form submission's (BENCHMARKS.md).
//! [`Arena`] hands out a fixed [`REGION`] by moving a pointer:
//! - `free` is a no-op, except for the newest allocation, which it takes
//!   back (a temporary string, a growing `Vec` given up);
//! - `realloc` of the newest allocation grows it in place, which is how a
//!   `Vec` or `String` being built grows, and any allocation shrinks in place;
//! - once the region is used up, allocations go to the system allocator as
//!   before, so a call that allocates a lot (a long import, a large page)
//!   still works, with the region's memory merely left unused.
//!
//! The region is taken from the system allocator at the first allocation; its
//! pages cost nothing until touched. A component opts in:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: crm_sdk::arena::Arena = crm_sdk::arena::Arena::new();
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Bytes handed out by bumping before the system allocator takes over: far
/// more than a contact create or a form submission allocates (about 12 KiB
/// each), well within the 4 MiB a component's memory starts with.
pub const REGION: usize = 1 << 20;

/// `region` before the first allocation.
const UNTAKEN: usize = 0;
/// `region` when the system allocator could not give one: bump nothing.
const UNAVAILABLE: usize = 1;
/// `last` when the newest allocation is not the arena's to take back.
const NONE: usize = usize::MAX;

/// See the module's documentation.
pub struct Arena {
    /// The region's address, or [`UNTAKEN`] / [`UNAVAILABLE`].
    region: Cell<usize>,
    /// Offset of the first free byte.
    next: Cell<usize>,
    /// Offset of the newest allocation, or [`NONE`].
    last: Cell<usize>,
}

// A component instance runs on one thread: wasm32 without the `atomics`
// feature has no threads, so the cells are never shared.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
unsafe impl Sync for Arena {}

impl Arena {
    pub const fn new() -> Self {
        Arena { region: Cell::new(UNTAKEN), next: Cell::new(0), last: Cell::new(NONE) }
    }

    /// Bytes bumped so far (alignment padding included).
    #[cfg(test)]
    fn used(&self) -> usize {
        self.next.get()
    }

    /// The region's address, taken on first use; `None` if unavailable.
    fn region(&self) -> Option<usize> {
        if self.region.get() == UNTAKEN {
            // SAFETY: a non-zero size and a valid alignment.
            let taken = unsafe { System.alloc(Layout::from_size_align_unchecked(REGION, 16)) } as usize;
            self.region.set(if taken == 0 { UNAVAILABLE } else { taken });
        }
        Some(self.region.get()).filter(|&r| r != UNAVAILABLE)
    }

    /// `ptr`'s offset in the region, if the arena handed it out.
    fn offset_of(&self, ptr: *mut u8) -> Option<usize> {
        let region = self.region.get();
        let addr = ptr as usize;
        (region != UNTAKEN && region != UNAVAILABLE && addr >= region && addr < region + REGION).then(|| addr - region)
    }

    /// Bumps `layout` out of the region; null when it does not fit.
    fn bump(&self, layout: Layout) -> *mut u8 {
        let Some(region) = self.region() else { return std::ptr::null_mut() };
        let start = (region + self.next.get()).checked_next_multiple_of(layout.align());
        match start.and_then(|s| s.checked_add(layout.size()).map(|end| (s, end))) {
            Some((start, end)) if end <= region + REGION => {
                self.last.set(start - region);
                self.next.set(end - region);
                start as *mut u8
            }
            _ => std::ptr::null_mut(),
        }
    }
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

// Out of line: inlined at every allocation site, the bump grew the modules'
// code by a tenth for no fewer instructions run.
unsafe impl GlobalAlloc for Arena {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = self.bump(layout);
        if ptr.is_null() { unsafe { System.alloc(layout) } } else { ptr }
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = self.bump(layout);
        if ptr.is_null() {
            return unsafe { System.alloc_zeroed(layout) };
        }
        // Bumped memory may have been handed out and taken back before.
        unsafe { ptr.write_bytes(0, layout.size()) };
        ptr
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match self.offset_of(ptr) {
            Some(offset) if offset == self.last.get() => {
                self.next.set(offset);
                self.last.set(NONE);
            }
            Some(_) => {}
            None => unsafe { System.dealloc(ptr, layout) },
        }
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Some(offset) = self.offset_of(ptr) else {
            return unsafe { System.realloc(ptr, layout, new_size) };
        };
        if offset == self.last.get() && new_size <= REGION - offset {
            self.next.set(offset + new_size);
            return ptr;
        }
        if new_size <= layout.size() {
            // An older allocation shrinks where it is; its tail stays unused.
            return ptr;
        }
        // SAFETY: the caller guarantees `new_size` with this alignment is a valid layout.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            unsafe { std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    #[test]
    fn allocations_follow_each_other_aligned() {
        let arena = Arena::new();
        unsafe {
            let a = arena.alloc(layout(3, 1));
            let b = arena.alloc(layout(8, 8));
            assert_eq!(b as usize % 8, 0);
            assert!(b as usize >= a as usize + 3 && (b as usize) < a as usize + 3 + 8);
            assert_eq!(arena.used(), b as usize + 8 - arena.region.get());
        }
    }

    #[test]
    fn freeing_the_newest_takes_it_back_and_an_older_one_does_not() {
        let arena = Arena::new();
        unsafe {
            let a = arena.alloc(layout(16, 8));
            let b = arena.alloc(layout(16, 8));
            arena.dealloc(a, layout(16, 8));
            assert_eq!(arena.used(), 32, "an older allocation stays");
            arena.dealloc(b, layout(16, 8));
            assert_eq!(arena.used(), 16, "the newest is taken back");
            assert_eq!(arena.alloc(layout(16, 8)), b);
        }
    }

    #[test]
    fn the_newest_grows_in_place_and_an_older_one_moves_to_grow() {
        let arena = Arena::new();
        unsafe {
            let a = arena.alloc(layout(4, 1));
            a.copy_from_nonoverlapping(b"abcd".as_ptr(), 4);
            let grown = arena.realloc(a, layout(4, 1), 100);
            assert_eq!(grown, a);
            assert_eq!(arena.used(), 100);
            let _newer = arena.alloc(layout(1, 1));
            assert_eq!(arena.realloc(a, layout(100, 1), 50), a, "an older one shrinks in place");
            let moved = arena.realloc(a, layout(50, 1), 200);
            assert_ne!(moved, a);
            assert_eq!(std::slice::from_raw_parts(moved, 4), b"abcd");
        }
    }

    #[test]
    fn zeroed_memory_is_zero_even_where_a_freed_allocation_was() {
        let arena = Arena::new();
        unsafe {
            let a = arena.alloc(layout(64, 8));
            a.write_bytes(0xAB, 64);
            arena.dealloc(a, layout(64, 8));
            let z = arena.alloc_zeroed(layout(64, 8));
            assert_eq!(z, a);
            assert!(std::slice::from_raw_parts(z, 64).iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn beyond_the_region_the_system_allocator_serves_and_frees() {
        let arena = Arena::new();
        unsafe {
            let big = arena.alloc(layout(REGION + 1, 8));
            assert!(!big.is_null());
            assert_eq!(arena.offset_of(big), None);
            big.write_bytes(1, REGION + 1);
            let grown = arena.realloc(big, layout(REGION + 1, 8), REGION + 2);
            assert_eq!(arena.offset_of(grown), None);
            arena.dealloc(grown, layout(REGION + 2, 8));

            let _first = arena.alloc(layout(8, 8));
            let in_region = arena.alloc(layout(REGION - 16, 8));
            assert_eq!(arena.offset_of(in_region), Some(8));
            let spilled = arena.alloc(layout(16, 8));
            assert_eq!(arena.offset_of(spilled), None, "a full region hands over to the system allocator");
            let moved = arena.realloc(in_region, layout(REGION - 16, 8), REGION);
            assert_eq!(arena.offset_of(moved), None, "an allocation that outgrows the region moves out of it");
            arena.dealloc(moved, layout(REGION, 8));
            arena.dealloc(spilled, layout(16, 8));
        }
    }
}
