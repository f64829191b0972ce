//! A video's frames, streamed: ffmpeg decodes the first video stream,
//! applies the file's rotation, scales each frame down and writes it as RGB
//! bytes into a pipe, which [`FrameReader`] reads one frame at a time.

use std::io::{BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use super::probe::VideoInfo;
use super::{ffmpeg_program, last_words, missing, VideoError};
use crate::media::shots::FrameRate;

/// How frames come out of the decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeSettings {
    /// Width of each frame, in pixels.
    pub width: u32,
    /// Height of each frame, in pixels.
    pub height: u32,
    /// Place frames on this constant rate's clock by their timestamps
    /// (duplicating or dropping where a variable-rate stream needs it);
    /// `None` passes frames through as decoded.
    pub constant_rate: Option<FrameRate>,
    /// How frames are scaled down.
    pub scaler: Scaler,
}

/// ffmpeg's scaling algorithm for the frames handed to a detector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scaler {
    /// Pixel-area averaging (`flags=area`), close to OpenCV's downscaling,
    /// for the HSV detectors.
    Area,
    /// ffmpeg's default (`bicubic`), which `ffmpeg -s 48x27` uses: the
    /// frames TransNetV2's reference implementation sees.
    Bicubic,
}

impl Scaler {
    fn flags(self) -> &'static str {
        match self {
            Scaler::Area => "area",
            Scaler::Bicubic => "bicubic",
        }
    }
}

impl DecodeSettings {
    /// Frames at most `max_width` wide (the video's own width when smaller),
    /// the height in proportion, on the clock of the video's rate (so frame
    /// `n` is at `n / rate` even when the stream's rate varies). `max_width`
    /// 256 is PySceneDetect's working size.
    pub fn scaled(info: &VideoInfo, max_width: u32) -> DecodeSettings {
        let (width, height) = scaled_size(info.width, info.height, max_width);
        DecodeSettings {
            width,
            height,
            constant_rate: Some(info.rate),
            scaler: Scaler::Area,
        }
    }

    /// Frames squeezed to exactly `width`×`height` (aspect not kept) with
    /// ffmpeg's default scaler, on the clock of the video's rate: what
    /// TransNetV2 reads (48×27).
    pub fn squeezed(info: &VideoInfo, width: u32, height: u32) -> DecodeSettings {
        DecodeSettings {
            width,
            height,
            constant_rate: Some(info.rate),
            scaler: Scaler::Bicubic,
        }
    }

    /// Bytes in one RGB frame.
    pub fn frame_bytes(&self) -> usize {
        self.width as usize * self.height as usize * 3
    }
}

/// `(w, h)` scaled to at most `max_width` wide, keeping the aspect; never 0.
pub fn scaled_size(width: u32, height: u32, max_width: u32) -> (u32, u32) {
    if width <= max_width || max_width == 0 {
        return (width.max(1), height.max(1));
    }
    let h = (f64::from(height) * f64::from(max_width) / f64::from(width)).round() as u32;
    (max_width, h.max(1))
}

/// The filter before scaling that keeps frame numbers on a constant clock:
/// `fps=N/D`, or nothing.
pub fn rate_filter(rate: Option<FrameRate>) -> Option<String> {
    rate.map(|r| format!("fps={}/{}", r.numerator(), r.denominator()))
}

/// Frames of one video, read in order.
pub struct FrameReader {
    path: PathBuf,
    child: Child,
    out: BufReader<ChildStdout>,
    errors: Option<JoinHandle<String>>,
    frame_bytes: usize,
    frames: u64,
}

impl FrameReader {
    /// Starts ffmpeg on `info`'s file with `settings`.
    pub fn open(info: &VideoInfo, settings: DecodeSettings) -> Result<FrameReader, VideoError> {
        let mut filters: Vec<String> = rate_filter(settings.constant_rate).into_iter().collect();
        filters.push(format!(
            "scale={}:{}:flags={}",
            settings.width,
            settings.height,
            settings.scaler.flags()
        ));
        let mut child = Command::new(ffmpeg_program())
            .args(["-nostdin", "-hide_banner", "-loglevel", "error", "-i"])
            .arg(&info.path)
            .args(["-map", "0:v:0", "-an", "-sn", "-dn", "-vf"])
            .arg(filters.join(","))
            .args([
                "-fps_mode",
                "passthrough",
                "-pix_fmt",
                "rgb24",
                "-f",
                "rawvideo",
                "pipe:1",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| missing("ffmpeg", "MOVIEGRAPH_FFMPEG", &e))?;
        let out = child.stdout.take().expect("stdout was piped");
        let mut err = child.stderr.take().expect("stderr was piped");
        // Read ffmpeg's messages beside the frames, so a chatty stream can
        // never fill its pipe and stall the decoder; keep the first 64 KiB.
        let errors = std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut buf = [0u8; 8192];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if kept.len() < 64 * 1024 {
                    kept.extend_from_slice(&buf[..n]);
                }
            }
            String::from_utf8_lossy(&kept).into_owned()
        });
        Ok(FrameReader {
            path: info.path.clone(),
            child,
            out: BufReader::with_capacity(settings.frame_bytes().max(1 << 16), out),
            errors: Some(errors),
            frame_bytes: settings.frame_bytes(),
            frames: 0,
        })
    }

    /// Reads the next frame into `frame` (of [`DecodeSettings::frame_bytes`]);
    /// `false` at the end of the stream. A frame cut short ends the stream.
    pub fn next_frame(&mut self, frame: &mut [u8]) -> Result<bool, VideoError> {
        debug_assert_eq!(frame.len(), self.frame_bytes);
        let mut filled = 0;
        while filled < frame.len() {
            match self.out.read(&mut frame[filled..]) {
                Ok(0) => return Ok(false),
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(VideoError::io(&self.path, e)),
            }
        }
        self.frames += 1;
        Ok(true)
    }

    /// Frames read so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Waits for ffmpeg. An error when it failed before giving any frame, or
    /// failed part way; otherwise ffmpeg's complaints about damaged data, if
    /// any (the frames it could decode were read).
    pub fn finish(mut self) -> Result<Option<String>, VideoError> {
        let status = self
            .child
            .wait()
            .map_err(|e| VideoError::io(&self.path, e))?;
        let stderr = self
            .errors
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if !status.success() {
            return Err(VideoError::Decode {
                path: self.path.clone(),
                frames: self.frames,
                message: last_words(&stderr),
            });
        }
        if self.frames == 0 {
            return Err(VideoError::Decode {
                path: self.path.clone(),
                frames: 0,
                message: "no frame could be decoded".into(),
            });
        }
        Ok((!stderr.trim().is_empty()).then(|| last_words(&stderr)))
    }
}

/// A [`FrameReader`] on its own thread, a few frames ahead of the caller, so
/// decoding (ffmpeg) and the caller's work on each frame overlap.
pub struct Prefetch {
    frames: Receiver<Result<Vec<u8>, VideoError>>,
    spare: SyncSender<Vec<u8>>,
    reader: Option<JoinHandle<Result<Option<String>, VideoError>>>,
    count: u64,
    path: PathBuf,
}

impl FrameReader {
    /// Moves the reader to a thread that keeps up to `depth` frames ready.
    pub fn prefetch(mut self, depth: usize) -> Prefetch {
        let depth = depth.max(1);
        let (tx, frames) = sync_channel(depth);
        let (spare, spares) = sync_channel::<Vec<u8>>(depth + 2);
        let path = self.path.clone();
        let reader = std::thread::spawn(move || {
            loop {
                let mut buf = spares
                    .try_recv()
                    .unwrap_or_else(|_| vec![0u8; self.frame_bytes]);
                match self.next_frame(&mut buf) {
                    Ok(true) => {
                        if tx.send(Ok(buf)).is_err() {
                            // The caller stopped: dropping the reader stops ffmpeg.
                            return Ok(None);
                        }
                    }
                    Ok(false) => break,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return Ok(None);
                    }
                }
            }
            self.finish()
        });
        Prefetch {
            frames,
            spare,
            reader: Some(reader),
            count: 0,
            path,
        }
    }
}

impl Prefetch {
    /// The next frame, `None` at the end of the stream.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>, VideoError> {
        match self.frames.recv() {
            Ok(Ok(frame)) => {
                self.count += 1;
                Ok(Some(frame))
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Ok(None),
        }
    }

    /// Hands a frame's buffer back for reuse.
    pub fn recycle(&self, frame: Vec<u8>) {
        let _ = self.spare.try_send(frame);
    }

    /// Frames handed out so far.
    pub fn frames(&self) -> u64 {
        self.count
    }

    /// Waits for the reader: as [`FrameReader::finish`].
    pub fn finish(mut self) -> Result<Option<String>, VideoError> {
        let handle = self.reader.take().expect("finished once");
        // Frames nobody will read must not keep the reader waiting.
        while self.frames.try_recv().is_ok() {}
        handle.join().unwrap_or_else(|_| {
            Err(VideoError::Decode {
                path: self.path.clone(),
                frames: self.count,
                message: "the frame reader stopped unexpectedly".into(),
            })
        })
    }
}

impl Drop for FrameReader {
    fn drop(&mut self) {
        // A reader dropped early (an error, a stop) must not leave ffmpeg running.
        if self.errors.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_scale_to_the_working_width_in_proportion() {
        assert_eq!(scaled_size(1920, 1080, 256), (256, 144));
        assert_eq!(scaled_size(1998, 1080, 256), (256, 138));
        assert_eq!(scaled_size(200, 100, 256), (200, 100));
        assert_eq!(scaled_size(4000, 1, 256), (256, 1));
    }

    #[test]
    fn only_a_variable_rate_gets_a_rate_filter() {
        assert_eq!(rate_filter(None), None);
        let r = FrameRate::new(30000, 1001).unwrap();
        assert_eq!(rate_filter(Some(r)).as_deref(), Some("fps=30000/1001"));
    }
}
