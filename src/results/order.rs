//! Lists kept in the order their items first appear: the one helper every grouping of the
//! results uses, below them all.

/// The item of `list` that `found` finds, pushed first as `new` makes it when none does: each
/// group of items once, in the order the first of each appears.
pub fn slot<T>(list: &mut Vec<T>, found: impl Fn(&T) -> bool, new: impl FnOnce() -> T) -> &mut T {
    let at = list.iter().position(found).unwrap_or_else(|| {
        list.push(new());
        list.len() - 1
    });
    &mut list[at]
}

/// `items` each once, in the order first seen.
pub fn first_seen<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut seen = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    seen
}
