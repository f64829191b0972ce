//! Small text helpers shared by the screenplay and media readers. This module
//! sits upstream of both: it depends on nothing else in the crate.

/// Decodes the character reference at the start of `s` (which starts with
/// `&`): a name from `named` (`&amp;`), or a decimal or hexadecimal numeric
/// reference (`&#39;`, `&#x2019;`). Returns the character and the reference's
/// byte length, or `None` when `s` does not start with one.
///
/// Each reader passes the names its files use; the set, and what a name
/// stands for, is the reader's choice. Numeric references may decode to any
/// scalar value, control characters included; a caller that must not see
/// them filters the result.
pub(crate) fn entity_at(s: &str, named: &[(&str, char)]) -> Option<(char, usize)> {
    // The longest reference decoded here is `&#x10FFFF;` (10 bytes); a name
    // with anything but ASCII in it matches nothing, so a byte window is enough.
    let semi = s.as_bytes().iter().take(12).position(|&b| b == b';')?;
    let name = &s[1..semi];
    let c = match named.iter().find(|(n, _)| *n == name) {
        Some(&(_, c)) => c,
        None => {
            let num = name.strip_prefix('#')?;
            let value = match num.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse::<u32>().ok()?,
            };
            char::from_u32(value)?
        }
    };
    Some((c, semi + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_numeric_and_not_references() {
        let named = [("amp", '&'), ("nbsp", ' ')];
        assert_eq!(entity_at("&amp; me", &named), Some(('&', 5)));
        assert_eq!(entity_at("&nbsp;", &named), Some((' ', 6)));
        assert_eq!(entity_at("&#39;s", &named), Some(('\'', 5)));
        assert_eq!(entity_at("&#x2019;", &named), Some(('’', 8)));
        assert_eq!(entity_at("&#X10FFFF;", &named), Some(('\u{10ffff}', 10)));
        assert_eq!(entity_at("&#1;", &named), Some(('\u{1}', 4)));
        assert_eq!(entity_at("&lt;", &named), None);
        assert_eq!(entity_at("&#xD800;", &named), None);
        assert_eq!(entity_at("& more; text", &named), None);
        assert_eq!(entity_at("&amp", &named), None);
        assert_eq!(entity_at("&ééééééé;", &named), None);
    }
}
