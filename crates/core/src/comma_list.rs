//! Items as a person writes them: `a, b, c` in a message, and the items of
//! a config value written that way.

use std::fmt::Display;

/// Each item as it displays, separated by `, `.
pub fn comma_list<T: Display>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|item| item.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `comma_list` of the first `max` items and how many more there are: a
/// message about a landing of 3,000 files names a few of them, not 3,000
/// (`--json` lists them all).
pub fn capped_comma_list<T: Display>(items: &[T], max: usize) -> String {
    match items.get(max..) {
        Some(rest) if !rest.is_empty() => {
            format!("{} and {} more", comma_list(&items[..max]), rest.len())
        }
        _ => comma_list(items),
    }
}

/// The items of a value written `A, B` (blank items dropped); items may
/// hold spaces (`GitHub Action`), so only commas split.
pub fn split_comma_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{capped_comma_list, comma_list, split_comma_list};

    #[test]
    fn a_long_list_names_its_first_items_and_counts_the_rest() {
        assert_eq!(capped_comma_list(&[1, 2, 3], 3), "1, 2, 3");
        assert_eq!(capped_comma_list(&[1, 2, 3, 4, 5], 2), "1, 2 and 3 more");
        assert_eq!(capped_comma_list(&Vec::<u8>::new(), 2), "");
    }

    #[test]
    fn a_value_splits_at_commas_only_and_drops_blank_items() {
        assert_eq!(split_comma_list(" a b , c,, "), ["a b", "c"]);
        assert!(split_comma_list("").is_empty());
    }

    #[test]
    fn items_are_separated_by_a_comma_and_a_space() {
        assert_eq!(comma_list([1, 2, 3]), "1, 2, 3");
        assert_eq!(comma_list(Vec::<u8>::new()), "");
    }
}
