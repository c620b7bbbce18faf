//! Items as a person reads them in a message: `a, b, c`.

use std::fmt::Display;

/// Each item as it displays, separated by `, `.
pub fn comma_list<T: Display>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|item| item.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::comma_list;

    #[test]
    fn items_are_separated_by_a_comma_and_a_space() {
        assert_eq!(comma_list([1, 2, 3]), "1, 2, 3");
        assert_eq!(comma_list(Vec::<u8>::new()), "");
    }
}
