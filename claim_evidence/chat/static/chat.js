/* claim-evidence chat widget: asks the site's answer endpoint and shows a guarded answer.

   Markup it enhances (one script, one stylesheet, no build step, no third-party code):
     <link rel="stylesheet" href="/chat-widget/chat.css">
     <div data-claim-evidence-chat data-endpoint="/api/chat" lang="ja"></div>
     <script src="/chat-widget/chat.js" defer></script>

   Or the floating launcher, one script tag on any page: a button at the bottom right that opens
   the same widget in a panel (the stylesheet is linked from the script's own folder when the page
   has none; data-endpoint and data-lang are optional, the page's lang is the default):
     <script src="/chat-widget/chat.js" data-claim-evidence-chat-launcher defer></script>

   Every text that comes from the server is written with textContent, never as HTML; a source
   becomes a link only when its URL is http(s) (or a path on this site). Labels follow the container's lang (ja or en). */
(function () {
  "use strict";

  var MAX_QUESTION = 500;
  var MAX_EXCHANGES = 8;
  var MAX_HISTORY_CHARS = 700; // what the server keeps of each earlier message
  var MAX_BODY_BYTES = 262144; // the endpoint's default limit (256 KiB): 8 exchanges of 700 characters always fit
  var SCRIPT = document.currentScript; // read now: it is null once this first run is over

  var LABELS = {
    ja: {
      region: "記事の資料に基づくAI回答",
      answers: "回答",
      question: "質問（500文字まで）",
      hint: "Enterで送信、Shift+Enterで改行。回答はサイトの根拠記録だけを材料に生成されます。",
      submit: "質問する",
      waiting: "回答を待っています…",
      received: "回答を受け取りました。",
      asked: "質問",
      aiLabel: "AI生成・未検証",
      state: "証拠状態",
      confirmed: "資料で確認できたこと",
      unknown: "この資料では確認できないこと",
      sources: "出典",
      refused: "この質問には回答しません。",
      note: "各項目の状態タグは、引用した資料に記録された状態を書き写したものです。この回答の正しさを保証するものではありません。",
      copy: "回答をコピー",
      copied: "回答をコピーしました。",
      copyFailed: "コピーできませんでした。",
      empty: "質問を入力してください。",
      tooLong: "質問は500文字までです。",
      errors: {
        400: "質問を確認してください（1〜500文字）。",
        413: "送信内容が大きすぎます。",
        415: "送信形式が正しくありません。",
        429: "リクエストが多すぎます。しばらく待ってからもう一度お試しください。",
        503: "AIモデルに接続できませんでした。時間をおいてもう一度お試しください。",
        other: "回答を取得できませんでした。",
        network: "サーバーに接続できませんでした。"
      },
      retryAfter: "（約{s}秒後に再試行できます）",
      launcher: "記事の資料にAIで質問",
      panel: "記事の資料に基づくAI回答",
      close: "閉じる"
    },
    en: {
      region: "AI answers from this site's evidence records",
      answers: "Answers",
      question: "Question (up to 500 characters)",
      hint: "Enter sends, Shift+Enter adds a line. Answers are generated from this site's evidence records only.",
      submit: "Ask",
      waiting: "Waiting for the answer…",
      received: "Answer received.",
      asked: "Question",
      aiLabel: "AI-generated, not verified",
      state: "Evidence state",
      confirmed: "Confirmed in the material",
      unknown: "Cannot be confirmed from this material",
      sources: "Sources",
      refused: "This question is not answered.",
      note: "Item tags transcribe the state recorded in the cited material. They do not vouch for this answer.",
      copy: "Copy answer",
      copied: "Answer copied.",
      copyFailed: "Could not copy.",
      empty: "Please enter a question.",
      tooLong: "Questions are limited to 500 characters.",
      errors: {
        400: "Please check the question (1 to 500 characters).",
        413: "The request is too large.",
        415: "The request format is not accepted.",
        429: "Too many requests. Please wait a moment and try again.",
        503: "The AI model could not be reached. Please try again later.",
        other: "The answer could not be retrieved.",
        network: "The server could not be reached."
      },
      retryAfter: " (try again in about {s} s)",
      launcher: "Ask AI about these records",
      panel: "AI answers from this site's evidence records",
      close: "Close"
    }
  };

  var counter = 0;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function httpUrl(value) {
    // An absolute http(s) URL without credentials, or a path on this site ("/a.html#evidence-x");
    // anything else is no link (the guard already keeps only the retrieved records' URLs: a second fence).
    if (typeof value !== "string" || !(/^https?:\/\//i.test(value) || /^\/(?![\/\\])/.test(value))) return "";
    try {
      var parsed = new URL(value, window.location.href);
      var web = parsed.protocol === "http:" || parsed.protocol === "https:";
      return web && parsed.hostname && !parsed.username && !parsed.password ? parsed.href : "";
    } catch (e) {
      return "";
    }
  }

  function asText(value) {
    return typeof value === "string" ? value : "";
  }

  function itemParts(item) {
    // The guard gives each item as "[STATE] text"; an object {text, state} is read too.
    if (typeof item === "string") {
      var tagged = /^\[([A-Z]{1,20})\] ([\s\S]*)$/.exec(item);
      return tagged ? { text: tagged[2], state: tagged[1] } : { text: item, state: "" };
    }
    if (item && typeof item === "object") {
      return { text: asText(item.text), state: asText(item.state) };
    }
    return { text: "", state: "" };
  }

  function sourceParts(source) {
    if (typeof source === "string") return { url: source, title: "" };
    if (source && typeof source === "object") return { url: asText(source.url), title: asText(source.title) };
    return { url: "", title: "" };
  }

  function copyText(text) {
    if (navigator.clipboard && typeof navigator.clipboard.writeText === "function") {
      return navigator.clipboard.writeText(text).catch(function () { return fallbackCopy(text); });
    }
    return fallbackCopy(text);
  }

  function fallbackCopy(text) {
    return new Promise(function (resolve, reject) {
      var area = el("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "claim-evidence-chat-offscreen";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      if (ok) resolve(); else reject(new Error("copy refused"));
    });
  }

  function enhance(container) {
    if (container.getAttribute("data-claim-evidence-chat-ready") === "true") return;
    container.setAttribute("data-claim-evidence-chat-ready", "true");
    var langAttr = (container.closest("[lang]") || document.documentElement).getAttribute("lang") || "ja";
    var lang = langAttr.toLowerCase().indexOf("en") === 0 ? "en" : "ja";
    var t = LABELS[lang];
    var endpoint = container.getAttribute("data-endpoint") || "/api/chat";
    var history = [];
    var busy = false;
    var id = "claim-evidence-chat-" + (++counter);

    container.classList.add("claim-evidence-chat");
    container.setAttribute("role", "region");
    container.setAttribute("aria-label", t.region);

    var form = el("form", "claim-evidence-chat-form");
    form.setAttribute("novalidate", "");
    var label = el("label", "claim-evidence-chat-label", t.question);
    label.setAttribute("for", id + "-q");
    var field = el("textarea", "claim-evidence-chat-input");
    field.id = id + "-q";
    field.name = "question";
    field.rows = 3;
    field.maxLength = MAX_QUESTION;
    field.required = true;
    field.setAttribute("aria-describedby", id + "-hint");
    var hint = el("p", "claim-evidence-chat-hint", t.hint);
    hint.id = id + "-hint";
    var button = el("button", "claim-evidence-chat-submit", t.submit);
    button.type = "submit";
    form.appendChild(label);
    form.appendChild(field);
    form.appendChild(hint);
    form.appendChild(button);

    var status = el("p", "claim-evidence-chat-status");
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    var log = el("div", "claim-evidence-chat-log");
    log.setAttribute("role", "log");
    log.setAttribute("aria-live", "polite");
    log.setAttribute("aria-label", t.answers);

    container.textContent = "";
    container.appendChild(form);
    container.appendChild(status);
    container.appendChild(log);

    function say(text, isError) {
      status.textContent = text;
      status.classList.toggle("claim-evidence-chat-error", !!isError);
    }

    function errorText(response, code) {
      var text = t.errors[response.status] || t.errors.other;
      var wait = response.headers.get("Retry-After");
      if (response.status === 429 && code === "rate_limited" && wait && /^\d+$/.test(wait)) {
        text += t.retryAfter.replace("{s}", wait);
      }
      return text;
    }

    function renderList(parent, heading, items, className) {
      var parts = items.map(itemParts).filter(function (p) { return p.text; });
      if (!parts.length) return;
      parent.appendChild(el("p", "claim-evidence-chat-heading", heading));
      var list = el("ul", className);
      parts.forEach(function (p) {
        var li = el("li");
        if (p.state) {
          var tag = el("span", "claim-evidence-chat-tag", "[" + p.state + "]");
          tag.setAttribute("data-state", p.state);
          li.appendChild(tag);
          li.appendChild(document.createTextNode(" "));
        }
        li.appendChild(el("span", "claim-evidence-chat-item", p.text));
        list.appendChild(li);
      });
      parent.appendChild(list);
    }

    function citedSource(li, source) {
      // publisher: title, the title a link only for a safe URL (the server sends "" for any other).
      var publisher = asText(source.publisher), title = asText(source.title), href = httpUrl(source.url);
      if (publisher) li.appendChild(document.createTextNode(publisher + ": "));
      if (href) {
        var a = el("a", "", title || source.url);
        a.href = href;
        a.rel = "noopener noreferrer nofollow";
        li.appendChild(a);
      } else {
        li.appendChild(document.createTextNode(title));
      }
    }

    function renderCited(article, cited) {
      // The Cited Sources block (cited_sources): what the answer relied on, and how fresh each review is.
      if (!cited || typeof cited !== "object") return;
      var groups = Array.isArray(cited.groups) ? cited.groups : [];
      var unreviewed = Array.isArray(cited.not_reviewed) ? cited.not_reviewed : [];
      if (!groups.length && !unreviewed.length) return;
      var section = el("section", "claim-evidence-chat-cited");
      section.appendChild(el("p", "claim-evidence-chat-heading", asText(cited.title)));
      groups.forEach(function (group) {
        var sources = group && Array.isArray(group.sources) ? group.sources : [];
        if (!sources.length) return;
        section.appendChild(el("p", "claim-evidence-chat-kind", asText(group.heading)));
        var list = el("ul", "claim-evidence-chat-cited-list");
        sources.forEach(function (source) {
          if (!source || typeof source !== "object") return;
          var li = el("li");
          li.setAttribute("data-freshness", asText(source.state).replace(" ", "-"));
          var symbol = el("span", "claim-evidence-chat-symbol", asText(source.symbol));
          symbol.setAttribute("aria-hidden", "true");
          li.appendChild(symbol);
          li.appendChild(document.createTextNode(" " + asText(source.tag) + " " + asText(source.checked_at) + " "));
          citedSource(li, source);
          li.appendChild(document.createTextNode(" — " + asText(source.uses)));
          if (asText(source.suffix)) li.appendChild(el("span", "claim-evidence-chat-expired", " " + source.suffix));
          list.appendChild(li);
        });
        section.appendChild(list);
      });
      if (unreviewed.length) {
        section.appendChild(el("p", "claim-evidence-chat-kind", asText(cited.not_reviewed_heading)));
        var rest = el("ul", "claim-evidence-chat-cited-list");
        unreviewed.forEach(function (entry) {
          if (!entry || typeof entry !== "object") return;
          var li = el("li");
          li.setAttribute("data-freshness", "not-reviewed");
          li.appendChild(document.createTextNode(asText(entry.uses)));
          (Array.isArray(entry.sources) ? entry.sources : []).forEach(function (source, i) {
            li.appendChild(document.createTextNode(i ? "; " : " — "));
            if (source && typeof source === "object") citedSource(li, source);
          });
          rest.appendChild(li);
        });
        section.appendChild(rest);
      }
      article.appendChild(section);
    }

    function renderAnswer(question, data) {
      var article = el("article", "claim-evidence-chat-answer");
      var state = asText(data.state);
      article.setAttribute("data-state", state);
      var copy = asText(data.copy_text);
      article.setAttribute("data-copy-text", copy);

      var asked = el("p", "claim-evidence-chat-question");
      asked.appendChild(el("span", "claim-evidence-chat-asked", t.asked + ": "));
      asked.appendChild(el("span", "", question));
      article.appendChild(asked);

      var line = el("p", "claim-evidence-chat-line");
      line.appendChild(el("span", "claim-evidence-chat-ai", t.aiLabel));
      line.appendChild(document.createTextNode(" · " + t.state + ": "));
      var stateEl = el("strong", "claim-evidence-chat-state", state);
      line.appendChild(stateEl);
      article.appendChild(line);

      if (data.refused === true) article.appendChild(el("p", "claim-evidence-chat-refused", t.refused));
      article.appendChild(el("p", "claim-evidence-chat-text", asText(data.answer)));
      renderList(article, t.confirmed, Array.isArray(data.confirmed) ? data.confirmed : [], "claim-evidence-chat-confirmed");
      renderList(article, t.unknown, Array.isArray(data.unknown) ? data.unknown : [], "claim-evidence-chat-unknown");

      var sources = (Array.isArray(data.sources) ? data.sources : []).map(sourceParts).filter(function (s) { return s.url || s.title; });
      if (sources.length) {
        article.appendChild(el("p", "claim-evidence-chat-heading", t.sources));
        var list = el("ul", "claim-evidence-chat-sources");
        sources.forEach(function (s) {
          var li = el("li");
          var href = httpUrl(s.url);
          if (href) {
            var a = el("a", "", s.title || s.url);
            a.href = href;
            a.rel = "noopener noreferrer nofollow";
            li.appendChild(a);
          } else {
            li.appendChild(el("span", "", s.title ? s.title + " " + s.url : s.url));  // no link: shown as text
          }
          list.appendChild(li);
        });
        article.appendChild(list);
      }

      renderCited(article, data.cited_sources);
      article.appendChild(el("p", "claim-evidence-chat-note", t.note));
      var copyButton = el("button", "claim-evidence-chat-copy", t.copy);
      copyButton.type = "button";
      copyButton.addEventListener("click", function () {
        copyText(copy).then(function () { say(t.copied, false); }, function () { say(t.copyFailed, true); });
      });
      article.appendChild(copyButton);
      log.appendChild(article);
    }

    function remember(question, answer) {
      history.push(
        { role: "user", content: question.slice(0, MAX_HISTORY_CHARS) },
        { role: "assistant", content: answer.slice(0, MAX_HISTORY_CHARS) }
      );
      while (history.length > MAX_EXCHANGES * 2) history.shift();
    }

    function requestBody(question) {
      // The oldest exchanges go first when the request would not fit the endpoint's size limit.
      var earlier = history.slice();
      var body = JSON.stringify({ question: question, history: earlier, lang: lang });
      while (earlier.length && new Blob([body]).size > MAX_BODY_BYTES) {
        earlier.splice(0, 2);
        body = JSON.stringify({ question: question, history: earlier, lang: lang });
      }
      return body;
    }

    function submit() {
      if (busy) return;
      var question = field.value.trim();
      if (!question) { say(t.empty, true); field.focus(); return; }
      if (question.length > MAX_QUESTION) { say(t.tooLong, true); field.focus(); return; }
      busy = true;
      button.disabled = true;
      log.setAttribute("aria-busy", "true");
      say(t.waiting, false);
      fetch(endpoint, {
        method: "POST",
        // Accept-Language: the endpoint's fixed error messages in this widget's language, even before it reads the body.
        headers: { "Content-Type": "application/json", "Accept": "application/json", "Accept-Language": lang },
        credentials: "same-origin",
        body: requestBody(question)
      }).then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (data) {
          if (!response.ok) { say(errorText(response, data && data.error), true); return; }
          renderAnswer(question, data);
          remember(question, asText(data.answer));
          field.value = "";
          say(t.received, false);
        });
      }, function () {
        say(t.errors.network, true);
      }).then(function () {
        busy = false;
        button.disabled = false;
        log.removeAttribute("aria-busy");
      });
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      submit();
    });
    field.addEventListener("keydown", function (event) {
      // Enter sends; Shift+Enter is a new line; Enter that confirms an IME conversion is not a send.
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing && event.keyCode !== 229) {
        event.preventDefault();
        submit();
      }
    });
  }

  function pageLang(value) {
    var raw = value || document.documentElement.getAttribute("lang") || "ja";
    return raw.toLowerCase().indexOf("en") === 0 ? "en" : "ja";
  }

  function opaque(color) {
    return color && color !== "transparent" && !/^rgba\(.*,\s*0\)$/.test(color);
  }

  function pageColors() {
    // The panel floats over the page, so it needs a background: the page's own (body, else html), so it
    // follows the site's theme and its dark toggle; Canvas (the browser's) when neither sets one.
    var body = getComputedStyle(document.body);
    var html = getComputedStyle(document.documentElement);
    var background = opaque(body.backgroundColor) ? body.backgroundColor : opaque(html.backgroundColor) ? html.backgroundColor : "Canvas";
    return { background: background, color: background === "Canvas" ? "CanvasText" : body.color };
  }

  function launcher(script) {
    if (document.querySelector(".claim-evidence-chat-launcher")) return;
    var lang = pageLang(script.getAttribute("data-lang"));
    var t = LABELS[lang];
    var id = "claim-evidence-chat-launcher-" + (++counter);
    if (!document.querySelector('link[rel~="stylesheet"][href$="chat.css"]') && script.src) {
      var link = el("link");
      link.rel = "stylesheet";
      link.href = script.src.replace(/chat\.js([?#].*)?$/, "chat.css");
      document.head.appendChild(link);
    }
    var root = el("div", "claim-evidence-chat-launcher");
    root.setAttribute("lang", lang);
    var open = el("button", "claim-evidence-chat-launcher-button", t.launcher);
    open.type = "button";
    open.setAttribute("aria-expanded", "false");
    open.setAttribute("aria-controls", id + "-panel");
    var panel = el("div", "claim-evidence-chat-panel");
    panel.id = id + "-panel";
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-labelledby", id + "-title");
    panel.hidden = true;
    var head = el("div", "claim-evidence-chat-panel-head");
    var title = el("p", "claim-evidence-chat-panel-title", t.panel);
    title.id = id + "-title";
    var close = el("button", "claim-evidence-chat-close", "×");
    close.type = "button";
    close.setAttribute("aria-label", t.close);
    head.appendChild(title);
    head.appendChild(close);
    var widget = el("div");
    widget.setAttribute("data-claim-evidence-chat", "");
    widget.setAttribute("data-endpoint", script.getAttribute("data-endpoint") || "/api/chat");
    panel.appendChild(head);
    panel.appendChild(widget);
    root.appendChild(panel);
    root.appendChild(open);
    document.body.appendChild(root);
    enhance(widget);

    function show(visible) {
      if (visible) {
        var colors = pageColors();
        panel.style.backgroundColor = colors.background;
        panel.style.color = colors.color;
      }
      panel.hidden = !visible;
      open.setAttribute("aria-expanded", visible ? "true" : "false");
      if (visible) widget.querySelector("textarea").focus();
      else open.focus();
    }
    open.addEventListener("click", function () { show(panel.hidden); });
    close.addEventListener("click", function () { show(false); });
    document.addEventListener("keydown", function (event) {
      // Escape closes the open panel while focus is in it, or nowhere (a button disabled while it waits drops focus).
      var here = document.activeElement;
      var inside = !here || here === document.body || root.contains(here);
      if (event.key === "Escape" && !event.isComposing && !panel.hidden && inside) {
        event.preventDefault();
        show(false);
      }
    });
  }

  function start() {
    var containers = document.querySelectorAll("[data-claim-evidence-chat]");
    for (var i = 0; i < containers.length; i++) enhance(containers[i]);
    if (SCRIPT && SCRIPT.hasAttribute("data-claim-evidence-chat-launcher")) launcher(SCRIPT);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
