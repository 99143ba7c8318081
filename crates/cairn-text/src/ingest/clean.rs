//! The first stage: raw text to clean text. [`clean`] is pure and never
//! fails; its rules are in the [module doc of `ingest`](super).

use unicode_normalization::UnicodeNormalization;

/// HTML element names [`clean`] recognises as tags. A `<name>` whose name is
/// not here is text, in HTML too: `Vec<String>` stays as written.
const TAGS: &[&str] = &[
    "a",
    "abbr",
    "address",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "base",
    "bdi",
    "bdo",
    "big",
    "blockquote",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "link",
    "main",
    "map",
    "mark",
    "menu",
    "meta",
    "meter",
    "nav",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "picture",
    "pre",
    "progress",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "script",
    "section",
    "select",
    "small",
    "source",
    "span",
    "strike",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "tt",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
];

/// Elements removed with everything inside them: code, styling and markup
/// that is not text.
const DROPPED: &[&str] = &["script", "style", "noscript", "template", "svg"];

/// Elements that separate paragraphs: a blank line.
const PARAGRAPH_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "dl",
    "fieldset",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "ul",
];

/// Elements that separate lines: a line break.
const LINE_TAGS: &[&str] = &[
    "br",
    "caption",
    "dd",
    "div",
    "dt",
    "figcaption",
    "legend",
    "li",
    "option",
    "summary",
    "title",
    "tr",
];

/// Elements that separate cells: a space.
const CELL_TAGS: &[&str] = &["td", "th"];

/// Named entities decoded in HTML (others stay as written).
const ENTITIES: &[(&str, &str)] = &[
    ("amp", "&"),
    ("lt", "<"),
    ("gt", ">"),
    ("quot", "\""),
    ("apos", "'"),
    ("nbsp", "\u{a0}"),
    ("ensp", "\u{2002}"),
    ("emsp", "\u{2003}"),
    ("thinsp", "\u{2009}"),
    ("ndash", "–"),
    ("mdash", "—"),
    ("hellip", "…"),
    ("lsquo", "‘"),
    ("rsquo", "’"),
    ("ldquo", "“"),
    ("rdquo", "”"),
    ("laquo", "«"),
    ("raquo", "»"),
    ("bull", "•"),
    ("middot", "·"),
    ("copy", "©"),
    ("reg", "®"),
    ("trade", "™"),
    ("deg", "°"),
    ("plusmn", "±"),
    ("times", "×"),
    ("divide", "÷"),
    ("euro", "€"),
    ("pound", "£"),
    ("yen", "¥"),
    ("cent", "¢"),
    ("sect", "§"),
    ("para", "¶"),
    ("larr", "←"),
    ("rarr", "→"),
];

/// Cleans raw text for storage: HTML to text when the text looks like HTML,
/// line endings to `\n`, Unicode NFC, control characters removed and
/// whitespace normalised. The rules are in the [module doc](super).
pub fn clean(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let text = if looks_like_html(&text) {
        html_to_text(&text)
    } else {
        text
    };
    let mut visible = String::with_capacity(text.len());
    for c in text.nfc() {
        match c {
            '\n' | '\t' => visible.push(c),
            '\u{2028}' => visible.push('\n'),
            '\u{2029}' => visible.push_str("\n\n"),
            '\u{feff}' => {}
            // Vertical tab, form feed, next line: they separate words.
            c if c.is_control() && c.is_whitespace() => visible.push(' '),
            c if c.is_control() => {}
            c => visible.push(c),
        }
    }
    normalise_whitespace(&visible)
}

/// Whether `text` is HTML rather than plain text that happens to hold a
/// `<`: it has a doctype, a comment (`<!-- … -->`), a closing tag of a known
/// element (`</p>`), a line or rule break (`<br>`, `<hr/>`), or a known
/// element with an attribute (`<a href="…">`). A lone `<Table>` or
/// `<i>` is not enough: generic types (`Vec<Table>`) look the same.
pub(crate) fn looks_like_html(text: &str) -> bool {
    text.match_indices('<').any(|(i, _)| {
        let rest = &text[i..];
        if starts_with_ignore_case(rest, "<!doctype") {
            return true;
        }
        if let Some(comment) = rest.strip_prefix("<!--") {
            return comment.contains("-->");
        }
        let Some(tag) = parse_tag(rest) else {
            return false;
        };
        is_known(&tag.name)
            && (tag.closing || tag.has_attributes || matches!(tag.name.as_str(), "br" | "hr"))
    })
}

/// A tag read at the start of a string.
struct Tag {
    /// The element's name, lowercase.
    name: String,
    /// `</name>`.
    closing: bool,
    /// `<name … />`.
    self_closing: bool,
    /// An attribute with a value (`name=…`) follows the name.
    has_attributes: bool,
    /// Bytes from `<` to `>`, both included.
    len: usize,
}

/// Reads a tag at the start of `s`: `<`, an optional `/`, a name (an ASCII
/// letter, then letters and digits), then `>`, `/>` or whitespace and
/// attributes up to a `>` outside quotes. `None` for anything else
/// (`< b`, `<T: Clone>`, an unclosed quote).
fn parse_tag(s: &str) -> Option<Tag> {
    let bytes = s.as_bytes();
    let mut i = 1;
    let closing = bytes.get(i) == Some(&b'/');
    if closing {
        i += 1;
    }
    let name_start = i;
    if !bytes.get(i)?.is_ascii_alphabetic() {
        return None;
    }
    while bytes.get(i).is_some_and(u8::is_ascii_alphanumeric) {
        i += 1;
    }
    let name = s[name_start..i].to_ascii_lowercase();
    match *bytes.get(i)? {
        b'>' => {
            return Some(Tag {
                name,
                closing,
                self_closing: false,
                has_attributes: false,
                len: i + 1,
            })
        }
        b'/' if bytes.get(i + 1) == Some(&b'>') => {
            return Some(Tag {
                name,
                closing,
                self_closing: true,
                has_attributes: false,
                len: i + 2,
            })
        }
        b if b.is_ascii_whitespace() => {}
        _ => return None,
    }
    let attributes_start = i;
    let mut quote = None;
    while let Some(&b) = bytes.get(i) {
        match (quote, b) {
            (Some(q), b) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => {
                let attributes = &s[attributes_start..i];
                return Some(Tag {
                    name,
                    closing,
                    self_closing: attributes.trim_end().ends_with('/'),
                    has_attributes: attributes.contains('='),
                    len: i + 1,
                });
            }
            (None, b'<') => return None,
            (None, _) => {}
        }
        i += 1;
    }
    None
}

fn is_known(name: &str) -> bool {
    TAGS.contains(&name)
}

fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.get(..prefix.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
}

/// The byte offset in `s` just after the first `</name …>` (ASCII case
/// ignored), or `s.len()` when the element is never closed.
fn after_closing(s: &str, name: &str) -> usize {
    let lower = s.to_ascii_lowercase();
    let needle = format!("</{name}");
    let mut from = 0;
    while let Some(found) = lower[from..].find(&needle) {
        let at = from + found;
        if let Some(tag) = parse_tag(&s[at..]) {
            if tag.name == name {
                return at + tag.len;
            }
        }
        from = at + needle.len();
    }
    s.len()
}

/// The text of an HTML document (see the module doc): tags removed, block
/// elements as line breaks, source whitespace collapsed outside `<pre>`,
/// entities decoded.
fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut pre_depth = 0usize;
    let mut i = 0;
    while i < html.len() {
        let rest = &html[i..];
        if rest.starts_with("<!--") {
            i += rest.find("-->").map_or(rest.len(), |end| end + 3);
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            if let Some(end) = rest.find('>') {
                i += end + 1;
                continue;
            }
        }
        if rest.starts_with('<') {
            if let Some(tag) = parse_tag(rest).filter(|t| is_known(&t.name)) {
                let name = tag.name.as_str();
                i += tag.len;
                if DROPPED.contains(&name) {
                    if !tag.closing && !tag.self_closing {
                        i += after_closing(&html[i..], name);
                    }
                    push_space(&mut out);
                } else if PARAGRAPH_TAGS.contains(&name) {
                    push_breaks(&mut out, 2);
                } else if LINE_TAGS.contains(&name) {
                    push_breaks(&mut out, 1);
                } else if CELL_TAGS.contains(&name) {
                    push_space(&mut out);
                }
                if name == "pre" && !tag.self_closing {
                    pre_depth = if tag.closing {
                        pre_depth.saturating_sub(1)
                    } else {
                        pre_depth + 1
                    };
                }
                continue;
            }
        }
        if let Some((decoded, len)) = decode_entity(rest) {
            out.push_str(&decoded);
            i += len;
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        if pre_depth == 0 && c.is_ascii_whitespace() {
            push_space(&mut out);
        } else {
            out.push(c);
        }
        i += c.len_utf8();
    }
    out
}

/// One space, unless the text is empty or already ends with whitespace.
fn push_space(out: &mut String) {
    if !out.is_empty() && !out.ends_with([' ', '\n']) {
        out.push(' ');
    }
}

/// Trailing spaces dropped, then line breaks until the text ends with `n`
/// of them (none at the start of the text).
fn push_breaks(out: &mut String, n: usize) {
    out.truncate(out.trim_end_matches(' ').len());
    if out.is_empty() {
        return;
    }
    let have = out.len() - out.trim_end_matches('\n').len();
    for _ in have..n {
        out.push('\n');
    }
}

/// Decodes the character reference at the start of `s` (`&amp;`, `&#39;`,
/// `&#x27;`): the text it stands for and its length in bytes. The `;` is
/// required; a numeric reference to no character (0, a surrogate, beyond
/// U+10FFFF) is U+FFFD. `None` when `s` does not start with a reference
/// this module knows.
fn decode_entity(s: &str) -> Option<(String, usize)> {
    let body = s.strip_prefix('&')?;
    let end = body.bytes().take(11).position(|b| b == b';')?;
    if end == 0 {
        return None;
    }
    let name = &body[..end];
    let decoded = if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                u32::from_str_radix(hex, 16).ok()?
            }
            None if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) => {
                number.parse().ok()?
            }
            _ => return None,
        };
        let c = char::from_u32(code)
            .filter(|c| *c != '\0')
            .unwrap_or('\u{fffd}');
        c.to_string()
    } else {
        let (_, text) = ENTITIES.iter().find(|(n, _)| *n == name)?;
        (*text).to_string()
    };
    Some((decoded, end + 2))
}

/// Line by line: indentation kept (spaces and tabs as written, other blank
/// characters as spaces), other runs of blanks to one space, trailing
/// blanks dropped; blank lines at the start and end dropped, and runs of
/// blank lines to one.
fn normalise_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_lines = 0;
    for line in text.split('\n') {
        let line = normalise_line(line);
        if line.is_empty() {
            blank_lines += 1;
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
            if blank_lines > 0 {
                out.push('\n');
            }
        }
        out.push_str(&line);
        blank_lines = 0;
    }
    out
}

fn normalise_line(line: &str) -> String {
    let body = line.trim_start();
    let mut out: String = line[..line.len() - body.len()]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let mut blank = false;
    for c in body.chars() {
        if c.is_whitespace() {
            blank = true;
        } else {
            if blank {
                out.push(' ');
                blank = false;
            }
            out.push(c);
        }
    }
    if body.is_empty() {
        out.clear();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleans_plain_text() {
        let cases: &[(&str, &str)] = &[
            ("", ""),
            ("  \n\t\n ", ""),
            ("hello", "hello"),
            ("one   two\t\tthree", "one two three"),
            ("trailing   \nspaces\t", "trailing\nspaces"),
            ("a\r\nb\rc", "a\nb\nc"),
            ("a\n\n\n\n\nb", "a\n\nb"),
            ("\n\n\nstart and end\n\n\n", "start and end"),
            ("a\n \n\t\nb", "a\n\nb"),
            ("bell\u{7}and\u{0}null", "bellandnull"),
            (
                "tab\tkept as space, newline\nkept",
                "tab kept as space, newline\nkept",
            ),
            ("form\u{c}feed", "form feed"),
            ("\u{feff}BOM gone", "BOM gone"),
            ("e\u{301}te\u{301}", "été"),
            ("\u{212b}ngstr\u{f6}m", "Ångström"),
            ("non\u{a0}breaking\u{2003}space", "non breaking space"),
            (
                "    fn main() {\n        go();\n    }",
                "    fn main() {\n        go();\n    }",
            ),
            ("- list\n  - nested   item", "- list\n  - nested item"),
            ("line\u{2028}separator", "line\nseparator"),
        ];
        for (input, want) in cases {
            assert_eq!(clean(input), *want, "{input:?}");
        }
    }

    #[test]
    fn leaves_plain_text_with_angle_brackets_alone() {
        let cases: &[&str] = &[
            "a < b and c > d",
            "if x<y then swap",
            "Vec<String> holds names",
            "Result<Vec<u8>, Error>",
            "a Vec<Table> of rows",
            "HashMap<i, b> is odd but fine",
            "impl<T: Clone> Foo for Bar<T>",
            "Iterator<Item = u8>",
            "1 <2 and 3> 2",
            "<- an arrow -> and <=> too",
            "Tom &amp; Jerry stay escaped in plain text",
            "AT&T; fine",
            "email <dana@example.com>",
        ];
        for input in cases {
            assert!(!looks_like_html(input), "{input:?}");
            assert_eq!(clean(input), *input, "{input:?}");
        }
    }

    #[test]
    fn survives_broken_markup_and_is_idempotent_on_its_output() {
        let cases: &[&str] = &[
            "&",
            "&#",
            "&#x;",
            "&#99999999;",
            "&é;",
            "<",
            "</",
            "<p",
            "<!--",
            "<!",
            "</p>&#",
            "</p><a href=\"unclosed",
            "</p><!-- never closed",
            "</p><script>never closed",
            "</p>&#x1F600; &#128512; &#xD7FF;",
            "</p>\u{301}<b>\u{301}</b>",
            "</div>a\r\n\r\n\r\nb",
            "x\u{85}y\u{b}z",
        ];
        for input in cases {
            let once = clean(input);
            if !looks_like_html(&once) {
                assert_eq!(clean(&once), once, "{input:?}");
            }
        }
    }

    #[test]
    fn strips_html_to_text() {
        let cases: &[(&str, &str)] = &[
            ("<p>Hello <b>world</b></p>", "Hello world"),
            ("<p>One</p><p>Two</p>", "One\n\nTwo"),
            ("line one<br>line two<br/>three<BR />four", "line one\nline two\nthree\nfour"),
            (
                "<ul>\n  <li>First</li>\n  <li>Second</li>\n</ul>",
                "First\nSecond",
            ),
            ("<h1>Title</h1><div>Body text</div>", "Title\n\nBody text"),
            (
                "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>",
                "a b\nc",
            ),
            (
                "<p>x</p><script>var a = '<p>no</p>';</script><style>p { color: red }</style><p>y</p>",
                "x\n\ny",
            ),
            ("<SCRIPT type=\"text/javascript\">alert(1)</SCRIPT>Text", "Text"),
            (
                "<p>Fish &amp; chips &lt;3 &quot;yum&quot; &#39;ok&#39;</p>",
                "Fish & chips <3 \"yum\" 'ok'",
            ),
            ("<p>a&nbsp;b &#169; &#xA9; &#x263A; &eacute;</p>", "a b © © ☺ &eacute;"),
            ("<p>&lt;p&gt; is a tag</p>", "<p> is a tag"),
            ("<p>bad &#0; and &#xD800; refs</p>", "bad \u{fffd} and \u{fffd} refs"),
            (
                "<!DOCTYPE html><html><head><title>T</title></head><body><p>B</p></body></html>",
                "T\n\nB",
            ),
            ("<!-- a comment -->Visible", "Visible"),
            (
                "<a href=\"https://example.com/?a=1&amp;b=2\" title=\"x > y\">link</a> text",
                "link text",
            ),
            ("<p>Hello\n   wrapped\n   source</p>", "Hello wrapped source"),
            (
                "<p>Code:</p><pre>fn main() {\n    go();\n}</pre>",
                "Code:\n\nfn main() {\n    go();\n}",
            ),
            ("<p>Vec<String> survives</p>", "Vec<String> survives"),
            ("<p>e&#769;t&#xe9;</p>", "été"),
            ("<p>unclosed</p> <script>alert(1)", "unclosed"),
        ];
        for (input, want) in cases {
            assert!(looks_like_html(input), "{input:?}");
            assert_eq!(clean(input), *want, "{input:?}");
        }
    }
}
