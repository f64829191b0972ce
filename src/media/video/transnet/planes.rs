//! The (2+1)D convolutions of TransNetV2 as matrix products on padded
//! planes, with no copy of the input per kernel tap.
//!
//! Feature maps are stored channel by channel, each channel a row of
//! `frames + 2·TIME_PAD` frames of `(h+2)×(w+2)` pixels: a one-pixel ring of
//! zeros round every frame and [`TIME_PAD`] zero frames before and after.
//! With that layout a 3×3 kernel tap `(dy, dx)` is the same row read at a
//! fixed offset, and a temporal tap `k·d` frames away is the row read
//! `k·d` frames further on, so each tap is one `gemm` call over every frame
//! at once (accumulating into the output). Positions on the ring get
//! wrapped-around sums; they are set back to zero after each layer.
//!
//! The maps of a window are kept and written over by the next window
//! (freeing and mapping hundreds of megabytes per window costs more than
//! the arithmetic): each buffer keeps one role, and every writer leaves
//! the ring and padding frames as the next reader needs them.

use rayon::prelude::*;

/// Zero frames kept before and after the window (the largest dilation).
pub const TIME_PAD: usize = 8;

/// Which channels a product reads and writes: `depth` source channels from
/// `src_first` into `rows` output channels from `dst_first`.
#[derive(Debug, Clone, Copy)]
pub struct Channels {
    /// First output channel written.
    pub dst_first: usize,
    /// Output channels written.
    pub rows: usize,
    /// First source channel read.
    pub src_first: usize,
    /// Source channels read.
    pub depth: usize,
}

/// A window's feature maps, `channels` rows of padded frames.
#[derive(Debug, Clone)]
pub struct Planes {
    /// `channels × (frames + 2·TIME_PAD) × (h+2) × (w+2)` values.
    pub data: Vec<f32>,
    /// Channels.
    pub channels: usize,
    /// Frames (without the padding).
    pub frames: usize,
    /// Height of a frame (without the ring).
    pub h: usize,
    /// Width of a frame (without the ring).
    pub w: usize,
}

impl Planes {
    /// Zeros.
    pub fn zeros(channels: usize, frames: usize, h: usize, w: usize) -> Planes {
        let row = (frames + 2 * TIME_PAD) * (h + 2) * (w + 2);
        Planes {
            data: vec![0.0; channels * row],
            channels,
            frames,
            h,
            w,
        }
    }

    /// Values in one padded frame.
    pub fn plane(&self) -> usize {
        (self.h + 2) * (self.w + 2)
    }

    /// Values in one channel's row.
    pub fn row(&self) -> usize {
        (self.frames + 2 * TIME_PAD) * self.plane()
    }

    /// Index of pixel `(y, x)` of frame `t` of channel `c`.
    pub fn at(&self, c: usize, t: usize, y: usize, x: usize) -> usize {
        c * self.row() + (TIME_PAD + t) * self.plane() + (y + 1) * (self.w + 2) + x + 1
    }

    /// Writes `frames` of `h×w` RGB bytes, scaled to 0–1, into a 3-channel
    /// map of that size (the ring and padding frames stay as they are).
    pub fn fill_rgb(&mut self, bytes: &[u8]) {
        let (h, w) = (self.h, self.w);
        let p = self;
        for (t, frame) in bytes.chunks_exact(h * w * 3).enumerate() {
            for y in 0..h {
                for x in 0..w {
                    for c in 0..3 {
                        let i = p.at(c, t, y, x);
                        p.data[i] = f32::from(frame[(y * w + x) * 3 + c]) / 255.0;
                    }
                }
            }
        }
    }

    /// `dst[m, ·] (+)= lhs[m, k] · self[k, · + offset]` over the window's
    /// frames (every position of them, ring included), for the channels
    /// `ch` names; `lhs` is read with strides `(rs, cs)`; `overwrite`
    /// replaces what `dst` held there.
    fn accumulate(
        &self,
        dst: &mut Planes,
        ch: Channels,
        (lhs, rs, cs): (&[f32], usize, usize),
        offset: isize,
        overwrite: bool,
    ) {
        let Channels {
            dst_first,
            rows,
            src_first,
            depth,
        } = ch;
        let n = self.frames * self.plane();
        let start = TIME_PAD * self.plane();
        let src_start = (src_first * self.row() + start) as isize + offset;
        let dst_start = dst_first * dst.row() + start;
        assert_eq!(dst.row(), self.row());
        assert!(dst_first + rows <= dst.channels && src_first + depth <= self.channels);
        assert!(src_start >= 0);
        assert!(src_start as usize + (depth - 1) * self.row() + n <= self.data.len());
        assert!(lhs.len() > (rows - 1) * rs + (depth - 1) * cs);
        // SAFETY: the asserts keep every element gemm reads or writes inside
        // the three buffers (rows of `row()` values; offsets stay within a
        // row because TIME_PAD frames of margin exceed any tap's reach).
        unsafe {
            gemm::gemm(
                rows,
                n,
                depth,
                dst.data.as_mut_ptr().add(dst_start),
                1,
                dst.row() as isize,
                !overwrite,
                lhs.as_ptr(),
                cs as isize,
                rs as isize,
                self.data.as_ptr().offset(src_start),
                1,
                self.row() as isize,
                1.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::Rayon(0),
            );
        }
    }

    /// The 3×3 spatial convolution (padding 1) with `kernel` laid out
    /// `[out, in, 3, 3]`, written over `dst`'s frames (ring positions get
    /// wrapped-around sums; padding frames are not touched).
    pub fn spatial_into(&self, kernel: &[f32], dst: &mut Planes) {
        let stride = self.w as isize + 2;
        let out = dst.channels;
        for dy in 0..3 {
            for dx in 0..3 {
                let offset = (dy as isize - 1) * stride + dx as isize - 1;
                let tap = dy * 3 + dx;
                let ch = Channels {
                    dst_first: 0,
                    rows: out,
                    src_first: 0,
                    depth: self.channels,
                };
                let lhs = (&kernel[tap..], self.channels * 9, 9);
                self.accumulate(dst, ch, lhs, offset, tap == 0);
            }
        }
    }

    /// One temporal convolution (kernel 3, dilation `d`, padding `d`) over
    /// the channels `ch` names, with `taps` laid out `[rows, 3·depth]` (the
    /// three taps side by side); what `dst` held there is replaced.
    pub fn temporal_into(&self, dst: &mut Planes, ch: Channels, taps: &[f32], d: usize) {
        assert!(d <= TIME_PAD);
        for k in 0..3 {
            let offset = (k as isize - 1) * (d * self.plane()) as isize;
            let lhs = (&taps[k * ch.depth..], 3 * ch.depth, 1);
            self.accumulate(dst, ch, lhs, offset, k == 0);
        }
    }

    /// Adds `bias[c]` to channel `c`, applies a ReLU if `relu`, and sets the
    /// ring (and the padding frames) back to zero.
    pub fn finish_layer(&mut self, bias: &[f32], relu: bool) {
        let (plane, w, h) = (self.plane(), self.w, self.h);
        let frames = self.frames;
        let row = self.row();
        self.data
            .par_chunks_mut(row)
            .zip(bias.par_iter())
            .for_each(|(channel, &b)| {
                for (t, frame) in channel.chunks_exact_mut(plane).enumerate() {
                    let inside = t >= TIME_PAD && t < TIME_PAD + frames;
                    for (i, v) in frame.iter_mut().enumerate() {
                        let (y, x) = (i / (w + 2), i % (w + 2));
                        if !inside || y == 0 || y > h || x == 0 || x > w {
                            *v = 0.0;
                        } else {
                            let s = *v + b;
                            *v = if relu { s.max(0.0) } else { s };
                        }
                    }
                }
            });
    }

    /// `relu(self) + shortcut`, then 2×2 average pooling (odd rows and
    /// columns dropped, as PyTorch's `AvgPool3d((1, 2, 2))`), written into
    /// the pixels of `out` (half the size; its ring stays as it is).
    pub fn relu_add_pool_into(&self, shortcut: &Planes, out: &mut Planes) {
        let (h, w) = (out.h, out.w);
        assert_eq!(
            (h, w, out.channels),
            (self.h / 2, self.w / 2, self.channels)
        );
        let out_row = out.row();
        let src = self;
        out.data
            .par_chunks_mut(out_row)
            .enumerate()
            .for_each(|(c, row)| {
                let out_plane = (h + 2) * (w + 2);
                for t in 0..src.frames {
                    for y in 0..h {
                        for x in 0..w {
                            let mut sum = 0.0;
                            for (yy, xx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                                let i = src.at(c, t, 2 * y + yy, 2 * x + xx);
                                sum += src.data[i].max(0.0) + shortcut.data[i];
                            }
                            row[(TIME_PAD + t) * out_plane + (y + 1) * (w + 2) + x + 1] = sum / 4.0;
                        }
                    }
                }
            });
    }

    /// Each frame's mean over its pixels, per channel: `[frames][channels]`.
    pub fn frame_means(&self) -> Vec<f32> {
        let mut means = vec![0.0; self.frames * self.channels];
        let area = (self.h * self.w) as f32;
        for c in 0..self.channels {
            for t in 0..self.frames {
                let mut sum = 0.0;
                for y in 0..self.h {
                    for x in 0..self.w {
                        sum += self.data[self.at(c, t, y, x)];
                    }
                }
                means[t * self.channels + c] = sum / area;
            }
        }
        means
    }

    /// Each frame's values with the channel fastest (`[frames][h][w][c]`),
    /// as the reference flattens its last feature map.
    pub fn channels_last(&self) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.frames * self.h * self.w * self.channels);
        for t in 0..self.frames {
            for y in 0..self.h {
                for x in 0..self.w {
                    for c in 0..self.channels {
                        out.push(self.data[self.at(c, t, y, x)]);
                    }
                }
            }
        }
        out
    }
}
