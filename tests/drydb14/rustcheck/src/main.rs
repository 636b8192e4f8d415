//! crate-check FILE: opens a DryDB 1.4 file with the drydb-rs crate, runs its
//! verify, reads every table and index through the crate's public API and
//! prints them as JSON in the shape of the fixtures' .expected.json:
//!
//!   {"page_size": N, "filters": [...], "tables": [{"name", "primary_index":
//!    {"encoding"}, "count", "rows": [[key_hex, value_hex]...], "indexes":
//!    [{"name", "encoding", "is_unique", "count", "entries": [[index_key_hex,
//!    rid|null, value_hex, null, [page, start, length]]...]}]}]}
//!
//! (primary_key_hex, the fourth entry field, is not in the file: null.)
//! Besides verify it cross-checks the crate against itself: the descending
//! scan is the ascending one reversed, get finds every row, count agrees
//! with the scans, and a lookup of every distinct index key returns its run.
//! Any failure exits non-zero with a message on stderr.

use std::fmt::Write as _;
use std::ops::Bound;
use std::process::exit;

use drydb::{Database, Order, VerifyOptions};

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 * b.len());
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn fail(msg: String) -> ! {
    eprintln!("crate-check: {msg}");
    exit(1)
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| fail("usage: crate-check FILE".into()));
    let db = Database::open(&path).unwrap_or_else(|e| fail(format!("open {path}: {e}")));
    let report = db
        .verify(VerifyOptions::default())
        .unwrap_or_else(|e| fail(format!("verify: {e}")));
    if !report.problems.is_empty() {
        let p: Vec<String> = report.problems.iter().map(|p| p.to_string()).collect();
        fail(format!("verify found {} problems: {}", p.len(), p.join("; ")));
    }
    let cat = db.catalog().clone();
    let mut out = String::new();
    let filters: Vec<String> = cat.filters.iter().map(|f| json_str(f)).collect();
    let _ = write!(
        out,
        "{{\"page_size\": {}, \"filters\": [{}], \"verify\": {{\"pages_checked\": {}, \"entries_checked\": {}}}, \"tables\": [",
        cat.page_size,
        filters.join(", "),
        report.pages_checked,
        report.entries_checked
    );
    for (ti, td) in cat.tables.iter().enumerate() {
        let table = db.table(&td.name).unwrap_or_else(|e| fail(format!("table {}: {e}", td.name)));
        let mut rows: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let mut c = table.scan(Order::Ascending).unwrap_or_else(|e| fail(format!("scan: {e}")));
        while c.advance().unwrap_or_else(|e| fail(format!("scan {}: {e}", td.name))) {
            let e = c.current().unwrap_or_else(|| fail("scan: no current entry".into()));
            rows.push((e.key_to_vec(), e.value().to_vec()));
        }
        let mut desc: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let mut c = table.scan(Order::Descending).unwrap_or_else(|e| fail(format!("scan: {e}")));
        while c.advance().unwrap_or_else(|e| fail(format!("descending scan {}: {e}", td.name))) {
            let e = c.current().unwrap_or_else(|| fail("scan: no current entry".into()));
            desc.push((e.key_to_vec(), e.value().to_vec()));
        }
        desc.reverse();
        if desc != rows {
            fail(format!("table {}: the descending scan differs from the ascending one", td.name));
        }
        for (k, v) in &rows {
            match table.get(k) {
                Ok(Some(g)) if g.as_bytes() == &v[..] => {}
                other => fail(format!("table {}: get {} gave {:?}", td.name, hex(k), other.map(|o| o.map(|g| hex(g.as_bytes()))))),
            }
        }
        let count = table.count().unwrap_or_else(|e| fail(format!("count: {e}")));
        if count != rows.len() as u64 {
            fail(format!("table {}: count {count}, scan {}", td.name, rows.len()));
        }
        if ti > 0 {
            out.push_str(", ");
        }
        let _ = write!(
            out,
            "{{\"name\": {}, \"primary_index\": {{\"encoding\": {}}}, \"count\": {}, \"rows\": [",
            json_str(&td.name),
            json_str(&td.primary.key_encoding_id),
            count
        );
        for (i, (k, v)) in rows.iter().enumerate() {
            let _ = write!(out, "{}[\"{}\", \"{}\"]", if i > 0 { ", " } else { "" }, hex(k), hex(v));
        }
        out.push_str("], \"indexes\": [");
        for (ii, ixd) in td.secondaries.iter().enumerate() {
            let index = table.index(&ixd.name).unwrap_or_else(|e| fail(format!("index {}: {e}", ixd.name)));
            // (key, value, pageref)
            let mut ents: Vec<(Vec<u8>, Vec<u8>, (u64, usize, usize))> = Vec::new();
            let mut c = index.scan(Order::Ascending).unwrap_or_else(|e| fail(format!("index scan: {e}")));
            while c.advance().unwrap_or_else(|e| fail(format!("index scan {}: {e}", ixd.name))) {
                let v = c.value().unwrap_or_else(|| fail("index entry without a value".into()));
                ents.push((c.key().to_vec(), v.as_bytes().to_vec(), (v.page().get(), v.range().start, v.range().len())));
            }
            let n = index.count().unwrap_or_else(|e| fail(format!("index count: {e}")));
            if n != ents.len() as u64 {
                fail(format!("index {}: count {n}, scan {}", ixd.name, ents.len()));
            }
            let mut j = 0;
            while j < ents.len() {
                let mut m = j;
                while m < ents.len() && ents[m].0 == ents[j].0 {
                    m += 1;
                }
                let mut c = index.lookup(&ents[j].0).unwrap_or_else(|e| fail(format!("lookup: {e}")));
                let mut got = 0;
                while c.advance().unwrap_or_else(|e| fail(format!("lookup {}: {e}", ixd.name))) {
                    let v = c.value().unwrap_or_else(|| fail("lookup entry without a value".into()));
                    if j + got >= m || v.as_bytes() != &ents[j + got].1[..] {
                        fail(format!("index {}: lookup {} returned a wrong entry", ixd.name, hex(&ents[j].0)));
                    }
                    got += 1;
                }
                let k = &ents[j].0[..];
                let cr = index
                    .count_range(Bound::Included(k), Bound::Included(k))
                    .unwrap_or_else(|e| fail(format!("count_range: {e}")));
                if got != m - j || cr != (m - j) as u64 {
                    fail(format!("index {}: key {} has {} entries, lookup {got}, count_range {cr}", ixd.name, hex(k), m - j));
                }
                j = m;
            }
            if ii > 0 {
                out.push_str(", ");
            }
            let _ = write!(
                out,
                "{{\"name\": {}, \"encoding\": {}, \"is_unique\": {}, \"count\": {}, \"entries\": [",
                json_str(&ixd.name),
                json_str(&ixd.key_encoding_id),
                ixd.is_unique,
                n
            );
            let mut rid = 0u32;
            for (i, (k, v, r)) in ents.iter().enumerate() {
                rid = if i > 0 && ents[i - 1].0 == *k { rid + 1 } else { 0 };
                let rid_text = if ixd.is_unique { "null".to_string() } else { rid.to_string() };
                let _ = write!(
                    out,
                    "{}[\"{}\", {}, \"{}\", null, [{}, {}, {}]]",
                    if i > 0 { ", " } else { "" },
                    hex(k),
                    rid_text,
                    hex(v),
                    r.0,
                    r.1,
                    r.2
                );
            }
            out.push_str("]}");
        }
        out.push_str("]}");
    }
    out.push_str("]}\n");
    print!("{out}");
}
