//! zlib, called through its C interface (`libz-sys`, the zlib libgit2
//! already links): deflating a new object into a pack entry and the
//! entry's CRC-32, and inflating the objects the object reader reads (one
//! stream per reading thread, reset per object). `unsafe` is needed
//! because the calls are FFI over raw pointers into Rust buffers; the
//! safe functions and the `Inflater` here own the whole life of each
//! `z_stream` (init, use, end) so no pointer outlives the buffers it
//! points into. This module and `calls` are the only places of this crate
//! allowed `unsafe` (`tests/cli/unsafe_fence.rs` keeps it so).

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
fn blank_stream() -> libz_sys::z_stream {
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

/// How one step ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// The zlib stream ended: the object is whole.
    End,
    /// All input was taken: give more.
    NeedInput,
    /// The output reached the limit before the stream ended.
    Full,
}

/// zlib said the data is not a valid stream, or it ran past the size the
/// object's header gave.
#[derive(Debug)]
pub struct Corrupt;

/// One zlib inflate stream, kept for every object a thread reads: set up
/// once and reset per object (`inflateReset`), as git's `git_inflate`
/// does, instead of allocating zlib's 7 KiB state and 32 KiB window per
/// blob.
pub struct Inflater {
    // Boxed: zlib's state points back at its stream, which must not move.
    strm: Box<libz_sys::z_stream>,
}

// SAFETY: the stream is owned by this value alone and holds pointers only
// into zlib's own state (allocated with malloc) and, during a `step`, into
// the buffers that call borrows; nothing is shared with another thread.
unsafe impl Send for Inflater {}

impl Inflater {
    pub fn new() -> Option<Inflater> {
        let mut strm = Box::new(blank_stream());
        // SAFETY: `strm` is a fully initialised z_stream (no input yet)
        // whose allocator pair is malloc/free; version and size are the
        // library's own.
        let rc = unsafe {
            libz_sys::inflateInit_(
                &mut *strm,
                libz_sys::zlibVersion(),
                std::mem::size_of::<libz_sys::z_stream>() as i32,
            )
        };
        (rc == libz_sys::Z_OK).then_some(Inflater { strm })
    }

    /// Starts a new stream.
    pub fn reset(&mut self) {
        // SAFETY: the stream was initialised by inflateInit_; a reset of a
        // valid stream cannot fail.
        unsafe { libz_sys::inflateReset(&mut *self.strm) };
    }

    /// Inflates from `input` into `out`, which grows to at most `limit`
    /// bytes. Returns how many input bytes were taken and how the step
    /// ended. Callers that know the object's size pass one byte more as
    /// `limit`, so a whole object always fits and a stream that runs past
    /// its size ends `Full`.
    pub fn step(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        limit: usize,
    ) -> Result<(usize, Step), Corrupt> {
        if out.len() >= limit {
            return Err(Corrupt);
        }
        out.try_reserve_exact(limit - out.len())
            .map_err(|_| Corrupt)?;
        let room = (limit - out.len()).min(u32::MAX as usize);
        let taken_max = input.len().min(u32::MAX as usize);
        let filled = out.len();
        let s = &mut *self.strm;
        s.next_in = input.as_ptr() as *mut u8;
        s.avail_in = taken_max as _;
        // SAFETY: `out` has at least `room` bytes of spare capacity after
        // its length (reserved above); `input` outlives this call, and zlib
        // only reads from `next_in`. Both pointers are dropped from the
        // stream's use when this call returns (the next step sets them).
        let rc = unsafe {
            s.next_out = out.as_mut_ptr().add(filled);
            s.avail_out = room as _;
            libz_sys::inflate(s, libz_sys::Z_NO_FLUSH)
        };
        let written = room - s.avail_out as usize;
        let taken = taken_max - s.avail_in as usize;
        // SAFETY: zlib initialised exactly `written` bytes after `filled`.
        unsafe { out.set_len(filled + written) };
        match rc {
            libz_sys::Z_STREAM_END => Ok((taken, Step::End)),
            libz_sys::Z_OK | libz_sys::Z_BUF_ERROR if s.avail_out == 0 => Ok((taken, Step::Full)),
            libz_sys::Z_OK | libz_sys::Z_BUF_ERROR if s.avail_in == 0 => {
                Ok((taken, Step::NeedInput))
            }
            _ => Err(Corrupt),
        }
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        // SAFETY: initialised by inflateInit_ and ended once, here.
        unsafe { libz_sys::inflateEnd(&mut *self.strm) };
    }
}

/// The zlib stream `data` inflated, when it is whole and comes to exactly
/// `size` bytes (a binary patch's hunk); `None` otherwise.
pub fn inflate_exact(data: &[u8], size: usize) -> Option<Vec<u8>> {
    let mut inflater = Inflater::new()?;
    let mut out = Vec::with_capacity(size.min(1 << 30));
    let mut at = 0;
    loop {
        let (taken, step) = inflater.step(&data[at..], &mut out, size + 1).ok()?;
        at += taken;
        match step {
            Step::End => return (out.len() == size).then_some(out),
            Step::NeedInput if at < data.len() => {}
            Step::NeedInput | Step::Full => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        deflate_into(data, 6, 15, 8, &mut out).unwrap();
        out
    }

    fn inflate_all(
        inf: &mut Inflater,
        z: &[u8],
        piece: usize,
        limit: usize,
    ) -> Result<Vec<u8>, Corrupt> {
        inf.reset();
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            let end = (at + piece).min(z.len());
            let (taken, step) = inf.step(&z[at..end], &mut out, limit)?;
            at += taken;
            match step {
                Step::End => return Ok(out),
                Step::Full => return Err(Corrupt),
                Step::NeedInput if at >= z.len() => return Err(Corrupt),
                Step::NeedInput => {}
            }
        }
    }

    #[test]
    fn a_whole_stream_of_the_stated_size_inflates_exactly() {
        let z = zlib(b"binary\0data");
        assert_eq!(inflate_exact(&z, 11).as_deref(), Some(&b"binary\0data"[..]));
        assert_eq!(inflate_exact(&z, 10), None);
        assert_eq!(inflate_exact(&z, 12), None);
        assert_eq!(inflate_exact(&z[..z.len() - 2], 11), None);
    }

    #[test]
    fn a_stream_inflates_whole_in_any_pieces_and_never_past_its_size() {
        let data: Vec<u8> = (0..100_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let z = zlib(&data);
        let mut inf = Inflater::new().unwrap();
        for piece in [1, 7, 4096, z.len()] {
            assert_eq!(
                inflate_all(&mut inf, &z, piece, data.len() + 1).unwrap(),
                data
            );
        }
        // The stream is longer than the size a header claims: corrupt.
        assert!(inflate_all(&mut inf, &z, 4096, data.len() - 1).is_err());
        // Cut short, or with a flipped byte: never a panic, never success.
        assert!(inflate_all(&mut inf, &z[..z.len() / 2], 4096, data.len() + 1).is_err());
        let mut bad = z.clone();
        bad[z.len() / 2] ^= 0xff;
        bad[3] ^= 0x55;
        let _ = inflate_all(&mut inf, &bad, 4096, data.len() + 1);
        // And the stream still works after a bad one.
        assert_eq!(
            inflate_all(&mut inf, &z, 4096, data.len() + 1).unwrap(),
            data
        );
    }
}
