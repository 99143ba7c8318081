//! The texts a model reads: server instructions, the memory protocol (the
//! `memory-protocol` prompt, also `docs/AGENT_PROTOCOL.md`: one source) and
//! the `help` tool's topics.

/// The memory protocol: the `memory-protocol` prompt, the block `cairn
/// setup` writes into `CLAUDE.md`/`AGENTS.md`, and `docs/AGENT_PROTOCOL.md`.
pub const PROTOCOL: &str = include_str!("../../../docs/AGENT_PROTOCOL.md");

/// Sent to clients at initialisation.
pub const INSTRUCTIONS: &str = "Cairn is your persistent memory across sessions. At the start of work call `context` (with the task as topic) and follow its rules. Call `recall` before acting on anything you may have learnt before. Call `remember` right away for decisions, preferences, rules and hard-won facts: one short, specific fact per memory. When `remember` reports similar memories that are now wrong, remember the new fact with `supersedes`. The prompt `memory-protocol` and `help` (topic `protocol`) explain how to use memory well.";

/// The help topics.
pub const TOPICS: &[&str] = &[
    "overview", "protocol", "remember", "recall", "types", "projects", "forget", "tools",
    PARAMETERS,
];

/// The topic with every tool's parameters described whole (`tools/list`
/// carries each description's first words only, see `schema.rs`).
pub const PARAMETERS: &str = "parameters";

/// Topic [`PARAMETERS`]: each of `tools` (with its schemas as generated,
/// before they are made compact) and its parameters' whole descriptions.
pub fn parameters(tools: &[rmcp::model::Tool]) -> String {
    let mut tools: Vec<&rmcp::model::Tool> = tools.iter().collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = String::from("# Parameters of every tool\n");
    for tool in tools {
        out.push_str(&format!("\n## {}\n", tool.name));
        let Some(properties) = tool
            .input_schema
            .get("properties")
            .and_then(|p| p.as_object())
        else {
            continue;
        };
        for (name, schema) in properties {
            let text = schema
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or("");
            out.push_str(&format!("- `{name}`: {}\n", text.replace('\n', " ")));
        }
    }
    out
}

const OVERVIEW: &str = "# Cairn\n\
Persistent memory for agents: short texts (memories) stored with embeddings in one SQLite file, found again by hybrid search (keywords + meaning), ranked by relevance, use, recency and scope.\n\n\
- Session start: `context` (topic = the task).\n\
- Before acting: `recall` with a question.\n\
- When you learn something worth keeping: `remember`.\n\
- When a memory is wrong: `remember` with `supersedes`, or `forget`.\n\
- Browse: `list`; one memory: `get`; counts: `stats`.\n- In a conversation: `observe` the messages after each exchange; `window` gives the context to answer the next one within a budget; `recall` with `conversation`, `session` or `topic` searches it (`mode: temporal` for \"last week\").\n\n\
Topics: protocol, remember, recall, types, projects, forget, tools.\n";

const REMEMBER: &str = "# remember\n\
`remember {content, type?, project?, global?, tags?, metadata?, importance?, ttl?, supersedes?}`\n\n\
- One fact per memory, one or two sentences, specific, readable without the conversation.\n\
- `type`: see topic `types` (default note). `ttl`: \"24h\", \"7d\", \"2w\" for things that go stale.\n\
- Answers `status`: created, or deduplicated (a near-identical memory, cosine >= 0.92, of the same type and scope was updated instead; its id is kept).\n\
- `similar`: related memories (cosine 0.75-0.92) that may contradict the new one. If one is now wrong, write the new fact with `supersedes: <its id>`: the old one gets weight 0.1 and leaves recall.\n";

const RECALL: &str = "# recall\n\
`recall {query, project?, all_projects?, types?, tags?, limit?, mode?, since?, until?, budget?, explain?}`\n\n\
- Ask in plain words; `mode` hybrid (default), keyword (exact words, names, error codes) or semantic.\n\
- Scope: the session's project plus global memories; `project` picks another, `all_projects` searches all.\n\
- Score = RRF(BM25 rank, vector rank) x access boost x recency decay x scope weight (project 1.0, global 0.8) x weight. `explain: true` shows each factor.\n\
- `budget` caps the tokens of returned text; `omitted` counts what was left out.\n\
- Each returned memory counts as a use (it ranks a little higher next time).\n";

const TYPES: &str = "# Memory types\n\
| type | for |\n|---|---|\n\
| fact | what is true: where things are, how they work, names, versions |\n\
| preference | how the user likes things done |\n\
| decision | what was decided and why |\n\
| rule | what must always / never be done (loaded first into a context) |\n\
| procedure | steps that worked (loaded with rules) |\n\
| feedback | the user's corrections of your work |\n\
| summary | a condensed account of a longer thread |\n\
| episode | what happened when (never merged by dedup) |\n\
| context | current task state |\n\
| note | anything else (default) |\n";

const PROJECTS: &str = "# Projects\n\
Every memory is global or belongs to one project. A recall in a project sees that project's memories and the global ones (global ranked x0.8).\n\n\
When a call names no project, the session's project is used: from a `.cairn` file found walking up from the server's working directory or the client's MCP roots (`cairn init --project NAME` writes one), else the git repository's top-level directory name, else none (global). `stats` shows the session's project. Set `global: true` on remember for things true everywhere.\n";

const FORGET: &str = "# forget\n\
- One memory: `forget {id}` (id or unique prefix).\n\
- Many: `forget {project | global | types | tags | since | until}` first without `confirm`: it reports how many would go and deletes nothing. Then the same call with `confirm: true`. A project filter means that project's own memories, never global ones.\n\
- Deleting is final. To replace an outdated fact, prefer `remember` with `supersedes` (keeps history).\n\
- Expired memories (past their ttl) leave recall at once and are deleted by the server's periodic sweep.\n";

const TOOLS: &str = "# Tools\n\
| tool | does | changes memory |\n|---|---|---|\n\
| context | session-start Markdown within a budget | no |\n\
| recall | ranked search | no (counts uses) |\n\
| remember | store (dedup, contradiction check, supersede) | adds |\n\
| get | one memory in full | no (counts a use) |\n\
| update | change fields of one memory | yes |\n\
| forget | delete one, or many by filter with confirm | deletes |\n\
| list | browse with filters, sort, paging | no |\n\
| stats | counts | no |\n\
| observe | log conversation messages (topics start by themselves) | adds |\n\
| ingest | a longer text cut into scored, typed memories (receipt per chunk) | adds |\n\
| slot | named notebooks: use, save, save_progress, read, select, search, list, archive, restore, export, zero | adds |\n\
| window | the context for the next reply, within a budget | no |\n\
| help | these texts | no |\n\n\
Resources: `cairn://context`, `cairn://context/{project}`, `cairn://memory/{id}`, `cairn://session/{id}/working-memory`, `cairn://slot/{name}.md` (`.txt`, `.json`). Prompt: `memory-protocol`.\n";

/// The text of a help topic, if it exists.
pub fn topic(name: &str) -> Option<String> {
    let text = match name.trim().to_ascii_lowercase().as_str() {
        "overview" | "" => OVERVIEW,
        "protocol" | "memory-protocol" => PROTOCOL,
        "remember" => REMEMBER,
        "recall" => RECALL,
        "types" => TYPES,
        "projects" | "project" => PROJECTS,
        "forget" => FORGET,
        "tools" => TOOLS,
        _ => return None,
    };
    Some(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_topic_has_a_text() {
        for t in TOPICS.iter().filter(|t| **t != PARAMETERS) {
            assert!(topic(t).is_some(), "{t}");
        }
        assert!(topic("nonsense").is_none());
    }

    #[test]
    fn the_protocol_names_the_tools() {
        for tool in ["recall", "remember", "supersedes", "forget", "context"] {
            assert!(PROTOCOL.contains(tool), "{tool}");
        }
    }
}
