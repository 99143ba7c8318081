// Cairn web UI: theme, keyboard shortcuts, confirmations, copy buttons,
// select-all, the budget slider's readout and the import upload. No
// inline scripts or handlers anywhere: everything is wired up here.
(function () {
  "use strict";
  var root = document.documentElement;
  var saved = null;
  try { saved = localStorage.getItem("cairn-theme"); } catch (e) { /* private mode */ }
  if (saved === "dark" || saved === "light") root.setAttribute("data-theme", saved);

  function csrf() {
    var h = document.body && document.body.getAttribute("hx-headers");
    try { return h ? JSON.parse(h)["x-csrf-token"] : ""; } catch (e) { return ""; }
  }

  function rows() { return Array.prototype.slice.call(document.querySelectorAll("tr.row")); }
  var current = -1;
  function move(by) {
    var all = rows();
    if (!all.length) return;
    if (all[current]) all[current].classList.remove("current");
    current = Math.max(0, Math.min(all.length - 1, current + by));
    all[current].classList.add("current");
    var link = all[current].querySelector("a");
    if (link) link.focus();
  }

  document.addEventListener("keydown", function (e) {
    var t = e.target;
    var typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
    if (e.key === "Escape" && typing) { t.blur(); return; }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "/") {
      var q = document.getElementById("q");
      if (q) { e.preventDefault(); q.focus(); q.select(); }
    } else if (e.key === "j") { move(1); }
    else if (e.key === "k") { move(-1); }
    else if (e.key === "e") {
      var c = document.getElementById("content");
      if (c) { e.preventDefault(); c.focus(); c.scrollIntoView({ block: "center" }); }
    }
  });

  document.addEventListener("click", function (e) {
    var el = e.target.closest ? e.target.closest("[data-copy], #theme") : null;
    if (!el) return;
    if (el.id === "theme") {
      var dark = root.getAttribute("data-theme") === "dark" ||
        (!root.getAttribute("data-theme") && window.matchMedia("(prefers-color-scheme: dark)").matches);
      var next = dark ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try { localStorage.setItem("cairn-theme", next); } catch (err) { /* ignore */ }
      return;
    }
    var source = document.getElementById(el.getAttribute("data-copy"));
    if (source && navigator.clipboard) {
      navigator.clipboard.writeText(source.textContent).then(function () { el.textContent = "Copied"; });
    }
  });

  document.addEventListener("submit", function (e) {
    var form = e.target;
    var question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) { e.preventDefault(); return; }
    if (form.id === "import") { e.preventDefault(); upload(form); }
  });

  document.addEventListener("change", function (e) {
    if (e.target.id === "select-all") {
      var on = e.target.checked;
      document.querySelectorAll("input[name=ids]").forEach(function (b) { b.checked = on; });
    }
  });
  document.addEventListener("input", function (e) {
    if (e.target.id === "a-budget") {
      var out = document.getElementById("budget-out");
      if (out) out.textContent = e.target.value;
    }
  });

  // The import: the file goes up as the body of POST /ui/import, whose
  // answer is JSON Lines read as they come: progress lines (memories
  // written, bytes read, the bad lines met since the last one), then the
  // report. The bar follows the upload, then the server's reading of it.
  function upload(form) {
    var file = form.querySelector("input[type=file]").files[0];
    var bar = document.getElementById("import-progress");
    var out = document.getElementById("import-result");
    if (!file) return;
    out.textContent = "";
    var status = document.createElement("p");
    status.setAttribute("role", "status");
    status.textContent = "Uploading " + file.name + "…";
    var errors = document.createElement("ul");
    errors.className = "import-errors";
    out.appendChild(status);
    out.appendChild(errors);
    bar.hidden = false; bar.value = 0;
    function showErrors(list) {
      (list || []).forEach(function (err) {
        var li = document.createElement("li");
        li.textContent = "line " + err[0] + ": " + err[1];
        errors.appendChild(li);
      });
    }
    var seen = 0, last = null;
    function read(text) {
      var end = text.lastIndexOf("\n");
      if (end < seen) return;
      text.slice(seen, end).split("\n").forEach(function (line) {
        if (!line.trim()) return;
        try { last = JSON.parse(line); } catch (err) { return; /* not JSON: an error page */ }
        var p = last.progress;
        if (p) {
          bar.value = Math.min(100, Math.round(100 * p.bytes / Math.max(1, file.size)));
          status.textContent = "Importing: " + p.imported + " memories written, " + p.bad_lines + " bad lines so far…";
          showErrors(p.errors);
        }
      });
      seen = end + 1;
    }
    var xhr = new XMLHttpRequest();
    xhr.open("POST", "/ui/import");
    xhr.setRequestHeader("x-csrf-token", csrf());
    xhr.setRequestHeader("content-type", "application/x-ndjson");
    xhr.upload.onprogress = function (p) { if (p.lengthComputable) bar.value = Math.round(100 * p.loaded / p.total); };
    xhr.onprogress = function () { read(xhr.responseText); };
    xhr.onload = function () {
      read(xhr.responseText + "\n");
      bar.value = 100;
      if (xhr.status !== 200 || !last || !last.report) {
        status.className = "error"; status.setAttribute("role", "alert");
        status.textContent = "Import failed: " + ((last && last.error && last.error.message) || ("HTTP " + xhr.status));
        return;
      }
      var r = last.report;
      status.textContent = "Imported " + r.imported + ", skipped " + r.skipped_existing + " already stored, " + r.errors.length + " bad lines.";
      // The report lists every bad line: those not shown yet are added.
      showErrors(r.errors.slice(errors.children.length));
    };
    xhr.onerror = function () { status.textContent = "Import failed: the connection broke."; };
    xhr.send(file);
  }
})();
