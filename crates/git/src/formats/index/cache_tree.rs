//! The cache tree (`TREE` extension): the tree each directory's entries
//! make, read, written back, and invalidated along changed paths as git's
//! `cache_tree_invalidate_path` does.

use super::{Reader, Unreadable, corrupt};

/// A cache-tree node: the tree a directory's entries make, if still valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CacheTree {
    pub(super) name: Vec<u8>,
    /// Entries covered, or -1 once invalidated.
    pub(super) count: i64,
    pub(super) id: Option<[u8; 20]>,
    pub(super) children: Vec<CacheTree>,
}

pub(super) fn parse_tree(data: &[u8]) -> Result<CacheTree, Unreadable> {
    let mut r = Reader { buf: data, pos: 0 };
    let root = parse_tree_node(&mut r, 0)?;
    if r.pos != data.len() {
        return Err(corrupt("trailing bytes in the cache tree"));
    }
    Ok(root)
}

fn parse_tree_node(r: &mut Reader<'_>, depth: usize) -> Result<CacheTree, Unreadable> {
    if depth > 4096 {
        return Err(corrupt("cache tree too deep"));
    }
    let name = r.until_nul()?.to_vec();
    let rest = &r.buf[r.pos..];
    let line_end = rest
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| corrupt("cache tree line"))?;
    let line = std::str::from_utf8(&rest[..line_end]).map_err(|_| corrupt("cache tree line"))?;
    r.pos += line_end + 1;
    let (count, subtrees) = line
        .split_once(' ')
        .and_then(|(c, s)| Some((c.parse::<i64>().ok()?, s.parse::<usize>().ok()?)))
        .ok_or_else(|| corrupt("cache tree counts"))?;
    let id = if count >= 0 {
        let mut id = [0u8; 20];
        id.copy_from_slice(r.take(20)?);
        Some(id)
    } else {
        None
    };
    if subtrees > r.buf.len() - r.pos {
        return Err(corrupt("cache tree counts"));
    }
    let mut children = Vec::with_capacity(subtrees);
    for _ in 0..subtrees {
        children.push(parse_tree_node(r, depth + 1)?);
    }
    Ok(CacheTree {
        name,
        count,
        id,
        children,
    })
}

pub(super) fn write_tree(node: &CacheTree, out: &mut Vec<u8>) {
    out.extend_from_slice(&node.name);
    out.push(0);
    out.extend_from_slice(format!("{} {}\n", node.count, node.children.len()).as_bytes());
    if let (true, Some(id)) = (node.count >= 0, node.id) {
        out.extend_from_slice(&id);
    }
    for child in &node.children {
        write_tree(child, out);
    }
}

/// git's `cache_tree_invalidate_path`: every directory on the way to
/// `path` is invalid, and a directory named `path` itself is gone.
pub(super) fn invalidate(node: &mut CacheTree, path: &[u8]) {
    node.count = -1;
    node.id = None;
    match path.iter().position(|&b| b == b'/') {
        None => node.children.retain(|c| c.name != path),
        Some(slash) => {
            let (dir, rest) = (&path[..slash], &path[slash + 1..]);
            if let Some(child) = node.children.iter_mut().find(|c| c.name == dir) {
                invalidate(child, rest);
            }
        }
    }
}
