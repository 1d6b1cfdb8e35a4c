//! The pixel-art palette (`palette = true`): each pixel's colour replaced by the nearest of a
//! fixed 16-colour palette, nearest in Oklab (Björn Ottosson, 2020), where equal distances
//! look about equally different.

use super::ops::{srgb_decode, srgb_encode};

/// The palette: PICO-8's sixteen colours as sRGB codes, the best-known pixel-art palette
/// (dark and light steps of every hue, a warm and a cool grey).
pub const PALETTE: [[u8; 3]; 16] = [
    [0x00, 0x00, 0x00],
    [0x1d, 0x2b, 0x53],
    [0x7e, 0x25, 0x53],
    [0x00, 0x87, 0x51],
    [0xab, 0x52, 0x36],
    [0x5f, 0x57, 0x4f],
    [0xc2, 0xc3, 0xc7],
    [0xff, 0xf1, 0xe8],
    [0xff, 0x00, 0x4d],
    [0xff, 0xa3, 0x00],
    [0xff, 0xec, 0x27],
    [0x00, 0xe4, 0x36],
    [0x29, 0xad, 0xff],
    [0x83, 0x76, 0x9c],
    [0xff, 0x77, 0xa8],
    [0xff, 0xcc, 0xaa],
];

/// Linear sRGB to Oklab (Ottosson's published matrices).
#[allow(clippy::excessive_precision)] // the published digits
pub fn oklab(c: [f32; 3]) -> [f32; 3] {
    let [r, g, b] = c.map(|v| if v.is_finite() { v.max(0.0) } else { 0.0 });
    let l = 0.412_221_470_8 * r + 0.536_332_536_3 * g + 0.051_445_992_9 * b;
    let m = 0.211_903_498_2 * r + 0.680_699_545_1 * g + 0.107_396_956_6 * b;
    let s = 0.088_302_461_9 * r + 0.281_718_837_6 * g + 0.629_978_700_5 * b;
    let (l, m, s) = (l.cbrt(), m.cbrt(), s.cbrt());
    [
        0.210_454_255_3 * l + 0.793_617_785_0 * m - 0.004_072_046_8 * s,
        1.977_998_495_1 * l - 2.428_592_205_0 * m + 0.450_593_709_9 * s,
        0.025_904_037_1 * l + 0.782_771_766_2 * m - 0.808_675_766_0 * s,
    ]
}

/// The palette in linear RGB and in Oklab.
fn entries() -> &'static [([f32; 3], [f32; 3]); 16] {
    static E: std::sync::OnceLock<[([f32; 3], [f32; 3]); 16]> = std::sync::OnceLock::new();
    E.get_or_init(|| {
        PALETTE.map(|c| {
            let lin = c.map(|v| srgb_decode(v as f32 / 255.0));
            (lin, oklab(lin))
        })
    })
}

/// The palette colour nearest linear `c`, linear (the first of equals).
pub fn nearest(c: [f32; 3]) -> [f32; 3] {
    let q = oklab(c.map(|v| v.min(1.0)));
    let d = |p: [f32; 3]| (0..3).map(|k| (p[k] - q[k]) * (p[k] - q[k])).sum::<f32>();
    let mut best = entries()[0];
    for e in entries().iter().skip(1) {
        if d(e.1) < d(best.1) {
            best = *e;
        }
    }
    best.0
}

/// The palette pass on a colour, linear or (after the encode pass) encoded.
pub(super) fn apply(c: [f32; 3], encoded: bool) -> [f32; 3] {
    if encoded {
        nearest(c.map(srgb_decode)).map(srgb_encode)
    } else {
        nearest(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oklab_matches_its_published_values_and_the_palette_is_a_fixed_point() {
        // Ottosson's table: white is (1, 0, 0); the sRGB red (0.62796, 0.22486, 0.12585).
        let w = oklab([1.0; 3]);
        assert!((w[0] - 1.0).abs() < 1e-3 && w[1].abs() < 1e-3 && w[2].abs() < 1e-3);
        let r = oklab([1.0, 0.0, 0.0]);
        assert!((r[0] - 0.62796).abs() < 1e-3 && (r[1] - 0.22486).abs() < 1e-3);
        assert!((r[2] - 0.12585).abs() < 1e-3);
        for c in PALETTE {
            let lin = c.map(|v| srgb_decode(v as f32 / 255.0));
            assert_eq!(nearest(lin), lin);
        }
        assert_eq!(nearest([0.0; 3]), [0.0; 3]);
    }
}
