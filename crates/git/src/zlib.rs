//! zlib, called through its C interface (`libz-sys`, the zlib libgit2
//! already links): deflating a new object into a pack entry, and the
//! entry's CRC-32. `unsafe` is needed because the calls are FFI over raw
//! pointers into Rust buffers; the safe functions here own the whole
//! life of each `z_stream` (init, deflate, end) so no pointer outlives
//! the buffers it points into. This module, `sys` and `object_read` are
//! the only places of this crate allowed `unsafe`
//! (`tests/cli/unsafe_fence.rs` keeps it so).

#![allow(unsafe_code)]

/// zlib's allocator: malloc.
///
/// # Safety
///
/// Called by zlib only, as its `zalloc`; what it returns is freed by `zfree`.
unsafe extern "C" fn zalloc(
    _: libz_sys::voidpf,
    items: libz_sys::uInt,
    size: libz_sys::uInt,
) -> libz_sys::voidpf {
    // SAFETY: malloc(3) has no precondition; the caller (zlib) frees what
    // it gets with `zfree`.
    unsafe { libc::malloc(items as usize * size as usize) }
}

/// zlib's deallocator: free.
///
/// # Safety
///
/// Called by zlib only, as its `zfree`, with a pointer `zalloc` returned.
unsafe extern "C" fn zfree(_: libz_sys::voidpf, ptr: libz_sys::voidpf) {
    // SAFETY: `ptr` came from `zalloc` (malloc) and is freed once.
    unsafe { libc::free(ptr) }
}

/// A z_stream before its `*Init*` call: no buffers yet, malloc and free
/// as its allocators.
pub fn blank_stream() -> libz_sys::z_stream {
    libz_sys::z_stream {
        next_in: std::ptr::null_mut(),
        avail_in: 0,
        total_in: 0,
        next_out: std::ptr::null_mut(),
        avail_out: 0,
        total_out: 0,
        msg: std::ptr::null_mut(),
        state: std::ptr::null_mut(),
        zalloc,
        zfree,
        opaque: std::ptr::null_mut(),
        data_type: 0,
        adler: 0,
        reserved: 0,
    }
}

/// Appends the zlib stream of `data` at `level`, with a window of
/// `window` bits and `mem_level`, to `out`; zlib's return code when it
/// fails (then `out` keeps its length).
pub fn deflate_into(
    data: &[u8],
    level: i32,
    window: i32,
    mem_level: i32,
    out: &mut Vec<u8>,
) -> Result<(), i32> {
    let mut strm = blank_stream();
    strm.next_in = data.as_ptr() as *mut u8;
    strm.avail_in = data.len() as _;
    // SAFETY: `strm` is a fully initialised z_stream whose allocator pair
    // is malloc/free; the version and size are the library's own.
    let rc = unsafe {
        libz_sys::deflateInit2_(
            &mut strm,
            level,
            libz_sys::Z_DEFLATED,
            window,
            mem_level,
            libz_sys::Z_DEFAULT_STRATEGY,
            libz_sys::zlibVersion(),
            std::mem::size_of::<libz_sys::z_stream>() as i32,
        )
    };
    if rc != libz_sys::Z_OK {
        return Err(rc);
    }
    // SAFETY: `strm` was initialised by deflateInit2_ above.
    let bound = unsafe { libz_sys::deflateBound(&mut strm, data.len() as _) } as usize;
    let start = out.len();
    let mut rc = libz_sys::Z_OK;
    // One Z_FINISH normally does it all; small windows with stored blocks
    // can need more room than deflateBound says, so grow and go on.
    let mut room = bound.max(64);
    while rc == libz_sys::Z_OK || rc == libz_sys::Z_BUF_ERROR {
        out.reserve(room);
        let filled = start + strm.total_out as usize;
        // SAFETY: `out` has at least `room` bytes of spare capacity after
        // `filled` (its length is `start`, zlib wrote `total_out` past it);
        // `data` stays alive and unmoved until deflateEnd.
        rc = unsafe {
            strm.next_out = out.as_mut_ptr().add(filled);
            strm.avail_out = (out.capacity() - filled).min(u32::MAX as usize) as _;
            libz_sys::deflate(&mut strm, libz_sys::Z_FINISH)
        };
        if rc == libz_sys::Z_BUF_ERROR && strm.avail_out != 0 {
            break;
        }
        room *= 2;
    }
    let written = strm.total_out as usize;
    // SAFETY: `strm` was initialised by deflateInit2_ and is ended once.
    unsafe { libz_sys::deflateEnd(&mut strm) };
    if rc != libz_sys::Z_STREAM_END {
        return Err(rc);
    }
    // SAFETY: zlib initialised exactly `written` bytes after `start`, all
    // within `out`'s capacity.
    unsafe { out.set_len(start + written) };
    Ok(())
}

/// The CRC-32 of `data`, as zlib computes it.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0;
    for chunk in data.chunks(u32::MAX as usize) {
        // SAFETY: `chunk` is a live slice whose length fits zlib's uInt.
        crc = unsafe { libz_sys::crc32(crc, chunk.as_ptr(), chunk.len() as u32) };
    }
    crc as u32
}
