// mailauth web page: a same-origin client of POST /api/scan and
// POST /api/ptr-check. No framework, no build step, no third-party code;
// it runs under the page's Content-Security-Policy (no inline script or
// style). Every text exists in Chinese and English.
"use strict";

(function () {
  var LANG_KEY = "mailauth.lang";

  // Texts of the page itself (the results carry their own zh/en texts).
  var UI = {
    en: {
      skip: "Skip to the check",
      navLabel: "Site",
      navCheck: "Check",
      navAPI: "API",
      navCLI: "Command line",
      navHelp: "Help",
      langSwitch: "中文",
      langSwitchLabel: "切换到中文",
      heading: "Check a domain's email authentication",
      lead: "MX, SPF, DMARC, DKIM, MTA-STS, TLS-RPT, PTR and CAA, read from public DNS and HTTPS at the time of the check.",
      modeLabel: "What to check",
      modeDomain: "A domain",
      modeIP: "One sending IP alone",
      domainLabel: "Domain",
      domainHint: "A domain, a web address or a mailbox: example.com, https://example.com/, postmaster@example.com",
      selectorLabel: "DKIM selector",
      optional: "(optional)",
      selectorHint: "The s= value of a DKIM-Signature header, or from your mail provider. Never guessed.",
      ipLabel: "Sending IP",
      ipHint: "The public address your mail leaves from, for the PTR check.",
      scanButton: "Check domain",
      ptrIPLabel: "Sending IP",
      ptrIPHint: "A public IPv4 or IPv6 address: its reverse DNS (PTR) and forward confirmation are checked.",
      ptrButton: "Check IP",
      retry: "Try again",
      privacy: "Privacy: we keep only irreversible hashes of the domain and of the visitor, plus aggregate counts. Raw domains and sending IPs are not kept; a sending IP is used only for the current check.",
      limits: "Up to 30 checks per minute from one address. Results describe public configuration at the time of the check; they do not guarantee inbox placement.",
      footAPI: "API documentation",
      footCLI: "Command-line client",
      checking: "Checking…",
      elapsed: "{s} s",
      done: "Done in {s} s.",
      needDomain: "Enter a domain to check.",
      needIP: "Enter an IP address to check.",
      invalid: "Please check your input: {msg}",
      rateLimited: "Too many checks from your address.",
      rateLimitedOver: "You can try again now.",
      serverError: "The check could not be completed: {msg}. This is usually temporary.",
      networkError: "The service could not be reached. Check your connection and try again.",
      otherError: "The request was refused: {msg}",
      resultsFor: "Results for {d}",
      resultsForIP: "Reverse DNS of {ip}",
      score: "Score",
      grade: "Grade",
      outOf: "out of 100",
      gradeLabel: "Grade {g}, score {n} out of 100",
      counts: "Checks by status",
      selectorUsed: "DKIM selector",
      ipUsed: "Sending IP",
      checkedAt: "Checked at",
      duration: "Duration",
      ms: "{n} ms",
      severity: "Severity",
      status: "Status",
      details: "Details",
      diagnostics: "Diagnostics",
      diagnosticsCaption: "Diagnostics of {t}",
      fact: "Fact",
      value: "Value",
      yes: "Yes",
      no: "No",
      unknown: "Could not be determined",
      seconds: "{n} s ({d} days)",
      atLeast: "at least {n}",
      invalidField: "Please check your input: {field}: {rule}",
      rateLimitedLeft: "You can try again in {s} s.",
      fixFirst: "Fix first",
      fixFirstWhat: "{status} · Severity: {severity}",
      detailsOf: " of {t}",
      helpFix: "How to fix",
      helpAbout: "About this check",
      helpOf: " ({t})",
      nxHeadline: "{d} does not exist in the DNS — check the spelling",
      nxNoGrade: "No grade and no score: a name that does not exist has nothing to grade, and there is nothing to fix but the spelling.",
      nxCards: "What each check saw ({n}), all about a name that does not exist",
      causeHeadline_no_answer: "{d}: the name servers do not answer — one cause fails {n} checks",
      causeHeadline_dnssec: "{d}: DNSSEC validation fails — one cause fails {n} checks",
      causeHeadline_alias: "{d}: a CNAME chain loops or is too long — one cause fails {n} checks",
      cause_no_answer: "The domain's name servers do not answer",
      cause_dnssec: "The domain's DNSSEC signatures do not validate",
      cause_alias: "An alias (CNAME) chain of the domain loops or is too long",
      causeWhat: "one cause · fails {n} checks:",
      scannedAs: "Checked {d}: {why}",
      whyURL: "the domain of the web address you entered.",
      whyMailbox: "the domain of the mailbox you entered.",
      whyWWW: "the www. label is dropped, because mail is set up on the domain itself.",
      whyOther: "the normal form of what you entered.",
      covers: "The score covers {n} of {total} checks (could not be determined: {u}; not evaluated: {i}).",
      notDetermined: "Not determined",
      doneCached: "Done. Answers may be up to 5 minutes old: the service caches DNS.",
      cacheNote: "Built from DNS answers that may be up to 5 minutes old: the service caches DNS. After fixing a record, a rescan can show the old answer until the cache expires (at most 5 minutes, less when the record's TTL is shorter).",
      changesHeading: "Since your last check of this domain ({when})",
      changeFixed: "Fixed: {t} ({from} → {to})",
      changeWorse: "Newly failing: {t} ({from} → {to})",
      changeOther: "Changed: {t} ({from} → {to})",
      changeSame: "Unchanged: {n} checks",
      changeNone: "Nothing changed since then.",
      historyKept: "This browser keeps the last result of each domain you check, to show what changed when you check it again; it is never sent anywhere.",
      historyNone: "This browser keeps no results.",
      forget: "Forget kept results",
      forgotten: "The results kept in this browser were forgotten.",
      lookMixed: "This name mixes {scripts} letters; it is not {latin}.",
      lookMixedAny: "This name mixes {scripts} letters: it may imitate another name.",
      lookWhole: "This name is written in {scripts} letters that look like Latin ones; it is not {latin}.",
      lookWholeAny: "This name is written in {scripts} letters that look like Latin ones: it may imitate another name.",
      scriptAnd: " and "
    },
    zh: {
      skip: "跳到检查表单",
      navLabel: "站点",
      navCheck: "检查",
      navAPI: "API",
      navCLI: "命令行",
      navHelp: "帮助",
      langSwitch: "English",
      langSwitchLabel: "Switch to English",
      heading: "检查域名的邮件认证配置",
      lead: "检查 MX、SPF、DMARC、DKIM、MTA-STS、TLS-RPT、PTR 和 CAA，结果来自检查时公开的 DNS 与 HTTPS 配置。",
      modeLabel: "检查对象",
      modeDomain: "域名",
      modeIP: "只检查一个发件 IP",
      domainLabel: "域名",
      domainHint: "可以填域名、网址或邮箱地址，例如 example.com、https://example.com/、postmaster@example.com",
      selectorLabel: "DKIM 选择器",
      optional: "（可选）",
      selectorHint: "即 DKIM-Signature 邮件头中 s= 的值，也可向邮件服务商查询。本服务不会猜测选择器。",
      ipLabel: "发件 IP",
      ipHint: "实际发信使用的公网地址，用于反向解析（PTR）检查。",
      scanButton: "检查域名",
      ptrIPLabel: "发件 IP",
      ptrIPHint: "一个公网 IPv4 或 IPv6 地址：检查它的反向解析（PTR）及正向确认。",
      ptrButton: "检查 IP",
      retry: "重试",
      privacy: "隐私说明：我们只保存域名和访问者的不可逆哈希值以及汇总统计，不保存原始域名和发件 IP；发件 IP 只用于本次检查。",
      limits: "同一地址每分钟最多检查 30 次。结果只反映检查时的公开配置，不保证邮件能进入收件箱。",
      footAPI: "API 文档",
      footCLI: "命令行客户端",
      checking: "正在检查…",
      elapsed: "已用 {s} 秒",
      done: "检查完成，用时 {s} 秒。",
      needDomain: "请输入要检查的域名。",
      needIP: "请输入要检查的 IP 地址。",
      invalid: "输入有误，请检查：{msg}",
      rateLimited: "你的地址检查次数过多。",
      rateLimitedOver: "现在可以重试了。",
      serverError: "本次检查未能完成：{msg}。这通常是暂时的。",
      networkError: "无法连接到服务，请检查网络后重试。",
      otherError: "请求被拒绝：{msg}",
      resultsFor: "{d} 的检查结果",
      resultsForIP: "{ip} 的反向解析",
      score: "得分",
      grade: "等级",
      outOf: "满分 100",
      gradeLabel: "等级 {g}，得分 {n}（满分 100）",
      counts: "各状态的检查项数",
      selectorUsed: "DKIM 选择器",
      ipUsed: "发件 IP",
      checkedAt: "检查时间",
      duration: "用时",
      ms: "{n} 毫秒",
      severity: "严重程度",
      status: "状态",
      details: "详情",
      diagnostics: "诊断数据",
      diagnosticsCaption: "{t}的诊断数据",
      fact: "项目",
      value: "值",
      yes: "是",
      no: "否",
      unknown: "无法确定",
      seconds: "{n} 秒（{d} 天）",
      atLeast: "至少 {n}",
      invalidField: "输入有误，请检查“{field}”：{rule}",
      rateLimitedLeft: "请在 {s} 秒后重试。",
      fixFirst: "优先修复",
      fixFirstWhat: "{status} · 严重程度：{severity}",
      detailsOf: "：{t}",
      helpFix: "修复方法",
      helpAbout: "关于本项检查",
      helpOf: "（{t}）",
      nxHeadline: "{d} 在 DNS 中不存在，请检查拼写",
      nxNoGrade: "没有等级和得分：不存在的名称没有什么可以评级，除了拼写也没有什么需要修复。",
      nxCards: "各项检查的结果（{n} 项），针对的都是一个不存在的名称",
      causeHeadline_no_answer: "{d}：域名服务器没有应答——同一个原因导致 {n} 项检查失败",
      causeHeadline_dnssec: "{d}：DNSSEC 验证失败——同一个原因导致 {n} 项检查失败",
      causeHeadline_alias: "{d}：别名（CNAME）链循环或过长——同一个原因导致 {n} 项检查失败",
      cause_no_answer: "该域名的域名服务器没有应答",
      cause_dnssec: "该域名的 DNSSEC 签名无法通过验证",
      cause_alias: "该域名的别名（CNAME）链循环或过长",
      causeWhat: "同一个原因 · 导致 {n} 项检查失败：",
      scannedAs: "实际检查的是 {d}：{why}",
      whyURL: "取自你输入的网址中的域名。",
      whyMailbox: "取自你输入的邮箱地址中的域名。",
      whyWWW: "去掉了开头的 www.，因为邮件是在域名本身上配置的。",
      whyOther: "这是你输入内容的规范形式。",
      covers: "得分涵盖 {total} 项检查中的 {n} 项（无法确定 {u} 项，未评估 {i} 项）。",
      notDetermined: "无法确定",
      doneCached: "完成。应答可能是最多 5 分钟前的：本服务会缓存 DNS。",
      cacheNote: "本结果所用的 DNS 应答可能是最多 5 分钟前的：本服务会缓存 DNS。修改记录后立即重新检查，在缓存过期之前（最多 5 分钟，记录的 TTL 更短时会更早）可能仍看到旧的应答。",
      changesHeading: "与你上次检查这个域名（{when}）相比",
      changeFixed: "已修复：{t}（{from} → {to}）",
      changeWorse: "新出现的问题：{t}（{from} → {to}）",
      changeOther: "有变化：{t}（{from} → {to}）",
      changeSame: "没有变化：{n} 项检查",
      changeNone: "与上次相比没有任何变化。",
      historyKept: "本浏览器会保存你检查过的每个域名的最近一次结果，用于再次检查时显示变化；这些结果不会发送到任何地方。",
      historyNone: "本浏览器没有保存任何结果。",
      forget: "清除保存的结果",
      forgotten: "本浏览器保存的结果已清除。",
      lookMixed: "该名称混用了{scripts}，它不是 {latin}。",
      lookMixedAny: "该名称混用了{scripts}，可能在冒充另一个名称。",
      lookWhole: "该名称全部由形似拉丁字母的{scripts}写成，它不是 {latin}。",
      lookWholeAny: "该名称全部由形似拉丁字母的{scripts}写成，可能在冒充另一个名称。",
      scriptAnd: "和"
    }
  };

  var STATUS = {
    pass: { en: "Pass", zh: "通过", icon: "✓" },
    warn: { en: "Warning", zh: "警告", icon: "!" },
    fail: { en: "Fail", zh: "未通过", icon: "✕" },
    info: { en: "Info", zh: "提示", icon: "i" }
  };

  var SEVERITY = {
    critical: { en: "Critical", zh: "严重" },
    high: { en: "High", zh: "高" },
    medium: { en: "Medium", zh: "中" },
    low: { en: "Low", zh: "低" },
    info: { en: "Info", zh: "提示" }
  };

  // The order of severities in the fix-first list, worst first.
  var SEVERITY_RANK = { critical: 4, high: 3, medium: 2, low: 1, info: 0 };

  // The form field each API field name of a 400 belongs to, by endpoint:
  // the input's id and the key of its label.
  var FIELD_INPUTS = {
    scan: { domain: ["domain", "domainLabel"], dkimSelector: ["selector", "selectorLabel"], sendingIp: ["sending-ip", "ipLabel"] },
    ptr: { sendingIp: ["ptr-ip", "ptrIPLabel"] }
  };

  // Chinese texts of the service's field rules (the API answers in
  // English; see InputError in the root package).
  var RULES_ZH = {
    "required": "必填",
    "must be a string": "必须是字符串",
    "too short": "太短",
    "too long": "太长",
    "contains characters that are not allowed": "含有不允许的字符",
    "not a valid URL": "不是有效的网址",
    "only http and https URLs are accepted": "只接受 http 和 https 网址",
    "credentialed URLs are not accepted": "不接受带用户名或密码的网址",
    "no host name given": "没有主机名",
    "the mailbox has an empty local part": "邮箱地址 @ 前面是空的",
    "address literals are not accepted": "不接受 IP 地址形式的邮箱域名",
    "IP addresses are not accepted, give a domain name": "不接受 IP 地址，请填写域名",
    "numeric names that could be read as an IP address are not accepted": "不接受可能被当作 IP 地址的纯数字名称",
    "empty labels are not allowed": "域名中不能有空的部分（例如连续两个点）",
    "a label is longer than 63 octets": "域名中有一段超过 63 个字节",
    "a domain needs at least two labels": "域名至少要有两段，例如 example.com",
    "not a valid internationalized domain name": "不是有效的国际化域名",
    "special-use and local names are not accepted": "不接受特殊用途或本地域名",
    "not an IPv4 or IPv6 address": "不是 IPv4 或 IPv6 地址",
    "IPv6 zone identifiers are not accepted": "不接受 IPv6 区域标识符",
    "does not match the required pattern": "格式不符合要求",
    "invalid value": "值无效"
  };

  // Chinese names of the address ranges a sending IP may not be in.
  var RANGES_ZH = {
    "this network": "本网络", "private": "私有", "shared": "运营商共享（CGNAT）", "loopback": "环回",
    "link local": "链路本地", "documentation": "文档示例", "benchmarking": "基准测试", "multicast": "组播",
    "reserved": "保留", "broadcast": "广播", "protocol": "协议专用", "not global": "非全球路由", "zoned": "带区域标识"
  };

  // Wire words of enumerated diagnostics, in both languages.
  var WORDS = {
    none: { en: "none (monitor only)", zh: "none（仅监测）" },
    quarantine: { en: "quarantine", zh: "quarantine（隔离）" },
    reject: { en: "reject", zh: "reject（拒收）" },
    enforce: { en: "enforce", zh: "enforce（强制）" },
    testing: { en: "testing", zh: "testing（测试）" },
    relaxed: { en: "relaxed", zh: "宽松（relaxed）" },
    strict: { en: "strict", zh: "严格（strict）" },
    unknown: { en: "unknown", zh: "未知" },
    exists: { en: "exists", zh: "存在" },
    nonexistent: { en: "does not exist", zh: "不存在" },
    not_announced: { en: "not announced", zh: "未声明" },
    not_attempted: { en: "not attempted", zh: "未尝试" },
    fetched: { en: "fetched", zh: "已获取" },
    unreachable: { en: "unreachable", zh: "无法访问" },
    inconclusive: { en: "could not be determined", zh: "无法确定" },
    rsa: { en: "RSA", zh: "RSA" },
    ed25519: { en: "Ed25519", zh: "Ed25519" },
    p: { en: "p (the domain's policy)", zh: "p（域名策略）" },
    sp: { en: "sp (subdomain policy)", zh: "sp（子域名策略）" },
    np: { en: "np (non-existent subdomain policy)", zh: "np（不存在的子域名策略）" }
  };

  // Labels of every diagnostics field of the contract, in its order.
  var FIELDS = {
    spf: [
      ["spfRecordCount", "SPF records found", "找到的 SPF 记录数"],
      ["dnsLookupCount", "DNS lookups needed", "所需的 DNS 查询次数"],
      ["dnsLookupLimit", "DNS lookup limit", "DNS 查询次数上限"],
      ["lookupComplete", "Include chain fully expanded", "引用链已完整展开"]
    ],
    dkim: [
      ["recordCount", "Records at the selector", "选择器下的记录数"],
      ["keyType", "Key type", "密钥类型"],
      ["publicKeyPresent", "Public key present", "存在公钥"],
      ["revoked", "Key revoked", "密钥已撤销"],
      ["testMode", "Test mode (t=y)", "测试模式（t=y）"],
      ["strictIdentity", "Strict identity (t=s)", "严格身份（t=s）"],
      ["emailServiceAllowed", "Allowed for email", "允许用于邮件"],
      ["sha256Allowed", "SHA-256 allowed", "允许 SHA-256"]
    ],
    dmarc: [
      ["directRecordCount", "Records at the domain's own _dmarc", "域名自身 _dmarc 下的记录数"],
      ["policyFound", "Policy found", "找到策略"],
      ["policyDomain", "Policy published at", "策略所在域名"],
      ["inherited", "Inherited from a parent domain", "继承自上级域名"],
      ["policyTag", "Policy tag applied", "适用的策略标签"],
      ["policy", "Applied policy", "适用的策略"],
      ["usesNoneFallback", "none fallback (RFC 9989)", "按 none 兜底（RFC 9989）"],
      ["testMode", "Test mode (t=y)", "测试模式（t=y）"],
      ["dkimAlignment", "DKIM alignment", "DKIM 对齐方式"],
      ["spfAlignment", "SPF alignment", "SPF 对齐方式"],
      ["aggregateReporting", "Aggregate reports requested", "已请求汇总报告"],
      ["treeWalkQueries", "Tree-walk queries", "树形查找的查询次数"],
      ["conflictingRecords", "Conflicting records discarded", "有冲突记录被丢弃"],
      ["domainExistence", "Domain existence", "域名是否存在"],
      ["legacyPctPresent", "Obsolete pct tag present", "含有已废弃的 pct 标签"]
    ],
    "mta-sts": [
      ["announcementRecordCount", "_mta-sts records", "_mta-sts 记录数"],
      ["announcementValid", "Announcement valid", "声明记录有效"],
      ["policyFetchState", "Policy fetch", "策略文件获取"],
      ["policyValid", "Policy valid", "策略有效"],
      ["policyMode", "Policy mode", "策略模式"],
      ["maxAge", "Policy lifetime (max_age)", "策略有效期（max_age）"],
      ["mxPatternCount", "MX patterns in the policy", "策略中的 MX 模式数"]
    ],
    "tls-rpt": [
      ["recordCount", "TLSRPTv1 records", "TLSRPTv1 记录数"],
      ["configured", "Reporting configured", "已配置报告"],
      ["destinationCount", "Valid destinations", "有效报告地址数"],
      ["mailtoDestinationCount", "mailto destinations", "mailto 地址数"],
      ["httpsDestinationCount", "HTTPS destinations", "HTTPS 地址数"]
    ],
    ptr: [
      ["ipVersion", "IP version", "IP 版本"],
      ["ptrRecordCount", "PTR names", "PTR 名称数"],
      ["forwardRecordType", "Forward lookup type", "正向查询类型"],
      ["forwardQueryCount", "Forward lookups selected", "选中的正向查询数"],
      ["forwardQueriesCompleted", "Forward lookups completed", "完成的正向查询数"],
      ["forwardAddressCount", "Addresses from forward lookups", "正向查询得到的地址数"],
      ["forwardConfirmed", "Forward-confirmed", "正向确认通过"]
    ]
  };

  var lang = "en";
  var last = null; // {kind: "scan"|"ptr", body: object}
  var busy = false;
  var timers = { tick: 0, retry: 0 };
  var retryFn = null;
  // The messages shown, kept as text keys so a language switch redraws them.
  var msgs = { status: null, alert: null, elapsed: null, countdown: null, field: null };

  function $(id) { return document.getElementById(id); }

  function t(key, vars) {
    var s = (UI[lang] && UI[lang][key]) || UI.en[key] || key;
    if (vars) {
      Object.keys(vars).forEach(function (k) { s = s.split("{" + k + "}").join(String(vars[k])); });
    }
    return s;
  }

  function loc(text) {
    if (!text) { return ""; }
    return text[lang] || text.en || "";
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }

  // ---- language ----

  function initialLang() {
    var stored = null;
    try { stored = window.localStorage.getItem(LANG_KEY); } catch (e) { stored = null; }
    if (stored === "zh" || stored === "en") { return stored; }
    var nav = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
    return /^zh\b/i.test(nav) ? "zh" : "en";
  }

  function applyLang() {
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    document.querySelectorAll("[data-i18n]").forEach(function (n) {
      n.textContent = t(n.getAttribute("data-i18n"));
    });
    document.querySelectorAll("[data-i18n-aria]").forEach(function (n) {
      n.setAttribute("aria-label", t(n.getAttribute("data-i18n-aria")));
    });
    var toggle = $("lang-toggle");
    toggle.setAttribute("lang", lang === "zh" ? "en" : "zh-CN");
    document.title = lang === "zh" ? "mailauth — 邮件认证检查" : "mailauth — email authentication check";
    renderMsgs();
    if (last) { render(); }
  }

  function switchLang() {
    lang = lang === "zh" ? "en" : "zh";
    try { window.localStorage.setItem(LANG_KEY, lang); } catch (e) { /* private mode */ }
    applyLang();
  }

  // ---- mode and fragment ----

  function setMode(mode) {
    $("mode-domain").checked = mode === "domain";
    $("mode-ip").checked = mode === "ip";
    $("scan-form").hidden = mode !== "domain";
    $("ptr-form").hidden = mode !== "ip";
  }

  // The fragment never reaches the server: it is the only place the page
  // keeps what was checked, for sharing a link.
  function readFragment() {
    var h = window.location.hash.replace(/^#/, "");
    if (!h) { return null; }
    var p = new URLSearchParams(h);
    if (p.get("ip") && !p.get("domain")) { return { mode: "ip", ip: p.get("ip") }; }
    if (p.get("domain")) {
      return { mode: "domain", domain: p.get("domain"), selector: p.get("selector") || "", ip: p.get("sendingIp") || "" };
    }
    return null;
  }

  function writeFragment(params) {
    var p = new URLSearchParams();
    Object.keys(params).forEach(function (k) { if (params[k]) { p.set(k, params[k]); } });
    var url = window.location.pathname + "#" + p.toString();
    window.history.replaceState(null, "", url);
  }

  // ---- requests ----

  function startBusy() {
    busy = true;
    var started = Date.now();
    document.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = true; });
    $("results").setAttribute("aria-busy", "true");
    hideAlert();
    // The live region announces "Checking…" once; the seconds tick
    // beside it, hidden from screen readers so they are not read out
    // every second.
    setStatus("checking");
    var show = function () {
      msgs.elapsed = { s: Math.floor((Date.now() - started) / 1000) };
      renderMsgs();
    };
    show();
    timers.tick = window.setInterval(show, 1000);
    return started;
  }

  function stopBusy(started) {
    busy = false;
    window.clearInterval(timers.tick);
    msgs.elapsed = null;
    $("results").removeAttribute("aria-busy");
    if (!timers.retry) {
      document.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = false; });
    }
    return ((Date.now() - started) / 1000).toFixed(1);
  }

  function post(path, body, onOK) {
    if (busy || timers.retry) { return; }
    var started = startBusy();
    retryFn = function () { post(path, body, onOK); };
    fetch(path + "?utm_source=web", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store"
    }).then(function (resp) {
      return resp.json().catch(function () { return {}; }).then(function (data) {
        var secs = stopBusy(started);
        if (resp.ok) {
          setStatus("done", { s: secs });
          onOK(data);
          return;
        }
        setStatus(null);
        failed(resp, data, path === "/api/ptr-check" ? "ptr" : "scan");
      });
    }).catch(function () {
      stopBusy(started);
      setStatus(null);
      showAlert("networkError", null, true);
    });
  }

  function failed(resp, data, kind) {
    var msg = (data && typeof data.error === "string") ? data.error : String(resp.status);
    if (resp.status === 400) {
      invalidInput(kind, msg);
    } else if (resp.status === 429) {
      var secs = parseInt(resp.headers.get("Retry-After"), 10);
      countdown(isFinite(secs) && secs > 0 ? secs : 60);
    } else if (resp.status >= 500) {
      showServiceError("serverError", msg, true);
    } else {
      showServiceError("otherError", msg, false);
    }
  }

  // showServiceError shows a message of the service in an alert, in the
  // page's language at every redraw.
  function showServiceError(key, msg, retry) {
    msgs.alert = { render: function () { return t(key, { msg: serviceText(msg) }); }, retry: retry };
    renderMsgs();
    revealAlert();
  }

  // invalidInput shows a 400: the field it names is marked invalid and
  // focused, and the message uses the form's label and the page's
  // language. The previous results go: they no longer match the form.
  function invalidInput(kind, msg) {
    clearResults();
    var m = /^([A-Za-z_]+): (.+)$/.exec(msg);
    var f = m && FIELD_INPUTS[kind][m[1]];
    if (!f) {
      msgs.alert = { render: function () { return t("invalid", { msg: ruleText(serviceText(msg)) }); } };
      renderMsgs();
      revealAlert();
      return;
    }
    showFieldError(f[0], function () { return t("invalidField", { field: t(f[1]), rule: ruleText(m[2]) }); });
  }

  // showFieldError puts an input error under its field: the field is
  // marked invalid and described by the message, then focused and
  // scrolled to the middle of the view (on a phone the form may be far
  // above the point where the page was).
  function showFieldError(id, render) {
    var input = $(id);
    input.setAttribute("aria-invalid", "true");
    msgs.field = { id: id, render: render };
    renderMsgs();
    input.focus({ preventScroll: true });
    input.scrollIntoView({ block: "center" });
  }

  // revealAlert brings the alert into view and gives it focus, so that a
  // message is seen (and read out) where the person is, on every width.
  function revealAlert() {
    var a = $("alert");
    a.focus({ preventScroll: true });
    a.scrollIntoView({ block: "center" });
  }

  // serviceText is a fixed message of the service's error catalogue in
  // the page's language: the server embeds the Chinese texts
  // (httpapi/errortexts.go); an unknown message stays as sent.
  var serviceTextsZH = null;
  function serviceText(msg) {
    if (lang !== "zh") { return msg; }
    if (!serviceTextsZH) {
      try { serviceTextsZH = JSON.parse($("alert").getAttribute("data-errors") || "{}"); } catch (e) { serviceTextsZH = {}; }
    }
    return serviceTextsZH[msg] || msg;
  }

  // ruleText is a rule of the API's 400 message in the page's language.
  function ruleText(rule) {
    if (lang !== "zh") { return rule; }
    if (RULES_ZH[rule]) { return RULES_ZH[rule]; }
    var m = /^not a public address \((.+) range\)$/.exec(rule);
    if (m) { return "不是公网地址（属于" + (RANGES_ZH[m[1]] || m[1]) + "地址段）"; }
    return rule;
  }

  // countdown disables the buttons for secs seconds after a 429. The
  // alert (a live region) says so once at the start and once at the end;
  // the seconds tick in an element that is not live, so they are not
  // read out every second.
  function countdown(secs) {
    var left = secs;
    var buttons = document.querySelectorAll("button[type=submit]");
    buttons.forEach(function (b) { b.disabled = true; });
    msgs.countdown = { s: left };
    showAlert("rateLimited", null, false);
    window.clearInterval(timers.retry);
    timers.retry = window.setInterval(function () {
      left -= 1;
      if (left > 0) { msgs.countdown = { s: left }; renderMsgs(); return; }
      window.clearInterval(timers.retry);
      timers.retry = 0;
      msgs.countdown = null;
      msgs.alert = { key: "rateLimitedOver" };
      renderMsgs();
      buttons.forEach(function (b) { b.disabled = false; });
    }, 1000);
  }

  function setStatus(key, vars) {
    msgs.status = key ? { key: key, vars: vars } : null;
    renderMsgs();
  }

  function showAlert(key, vars, retry) {
    msgs.alert = { key: key, vars: vars, retry: retry };
    renderMsgs();
    revealAlert();
  }

  // hideAlert removes the alert and any input error under a field.
  function hideAlert() {
    msgs.alert = null;
    msgs.field = null;
    renderMsgs();
  }

  // setText changes a node's text only when it differs, so a live region
  // is not touched (and re-read) when nothing changed.
  function setText(n, s) {
    if (n.textContent !== s) { n.textContent = s; }
  }

  function renderMsgs() {
    setText($("status"), msgs.status ? t(msgs.status.key, msgs.status.vars) : "");
    setText($("elapsed"), msgs.elapsed ? t("elapsed", msgs.elapsed) : "");
    var a = msgs.alert;
    $("alert").hidden = !a;
    setText($("alert-text"), a ? (a.render ? a.render() : t(a.key, a.vars)) : "");
    $("retry").hidden = !(a && a.retry);
    $("countdown").hidden = !msgs.countdown;
    setText($("countdown"), msgs.countdown ? t("rateLimitedLeft", msgs.countdown) : "");
    document.querySelectorAll(".field-error").forEach(function (p) {
      var id = p.id.replace(/-error$/, "");
      var on = !!(msgs.field && msgs.field.id === id);
      p.hidden = !on;
      setText(p, on ? msgs.field.render() : "");
      var input = $(id);
      var hint = (input.getAttribute("aria-describedby") || "").split(" ").filter(function (x) { return x && x !== p.id; });
      if (on) { hint.push(p.id); }
      input.setAttribute("aria-describedby", hint.join(" "));
    });
  }

  // required returns the trimmed value of a required field, or "" after
  // marking the field invalid, saying so and focusing it.
  function required(id, msgKey) {
    var f = $(id);
    var v = f.value.trim();
    if (!v) {
      clearResults();
      msgs.alert = null;
      showFieldError(id, function () { return t(msgKey); });
      return "";
    }
    f.removeAttribute("aria-invalid");
    return v;
  }

  function submitScan(ev) {
    if (ev) { ev.preventDefault(); }
    var domain = required("domain", "needDomain");
    if (!domain) { return; }
    var selector = $("selector").value.trim();
    var ip = $("sending-ip").value.trim();
    $("selector").removeAttribute("aria-invalid");
    $("sending-ip").removeAttribute("aria-invalid");
    var body = { domain: domain };
    if (selector) { body.dkimSelector = selector; }
    if (ip) { body.sendingIp = ip; }
    // The fragment keeps what was typed only once the service accepted
    // it: a shared link never carries an input that was rejected.
    post("/api/scan", body, function (data) {
      writeFragment({ domain: domain, selector: selector, sendingIp: ip });
      show({ kind: "scan", body: data, input: domain });
    });
  }

  function submitPtr(ev) {
    if (ev) { ev.preventDefault(); }
    var ip = required("ptr-ip", "needIP");
    if (!ip) { return; }
    post("/api/ptr-check", { sendingIp: ip }, function (data) {
      writeFragment({ ip: ip });
      show({ kind: "ptr", body: data });
    });
  }

  // ---- results ----

  // show draws a result and moves focus to its heading, with the heading
  // at the top of the view: on a phone the grade is then in sight, not
  // the middle of a long list of cards.
  function show(result) {
    if (result.kind === "scan") { remember(result); }
    last = result;
    render();
    $("results").hidden = false;
    var h = $("results-heading");
    h.focus({ preventScroll: true });
    h.scrollIntoView({ block: "start" });
  }

  // clearResults removes the results shown: they belong to an earlier
  // input.
  function clearResults() {
    last = null;
    $("results").hidden = true;
    $("overview").textContent = "";
    $("cards").textContent = "";
    $("fix-first").hidden = true;
    $("fix-first-list").textContent = "";
    $("cards-fold").hidden = true;
    $("scanned-name").hidden = true;
  }

  // isUndetermined reports whether a check could not be determined. The
  // contract has no field for it: such a check is a warn whose summary is
  // one of the sentences the server embeds in the page
  // (httpapi/undetermined.go).
  var undeterminedSummaries = null;
  function isUndetermined(c) {
    if (!undeterminedSummaries) {
      try {
        undeterminedSummaries = JSON.parse($("results").getAttribute("data-undetermined") || "[]");
      } catch (e) { undeterminedSummaries = []; }
    }
    return c.status === "warn" && !!c.summary && undeterminedSummaries.indexOf(c.summary.en) >= 0;
  }

  // domainMissing reports whether the scanned name does not exist in the
  // DNS: the DMARC tree walk saw NXDOMAIN, or the MX check's summary is
  // the sentence the server embeds in the page (mailauth.NXDomainSummary).
  function domainMissing(b) {
    var nx = $("results").getAttribute("data-nxdomain") || "";
    return (b.checks || []).some(function (c) {
      return (c.id === "dmarc" && c.diagnostics && c.diagnostics.domainExistence === "nonexistent") ||
        (c.id === "mx" && !!nx && !!c.summary && c.summary.en === nx);
    });
  }

  // scannedNote says which name was checked when it is not what was
  // typed, and why; "" when they are the same.
  function scannedNote(input, b) {
    var typed = String(input || "").trim().toLowerCase().replace(/\.$/, "");
    var names = [String(b.domain || "").toLowerCase(), String(b.unicodeDomain || "").toLowerCase()];
    if (!typed || names.indexOf(typed) >= 0) { return ""; }
    var host = typed.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").replace(/[\/?#:].*$/, "").replace(/^.*@/, "");
    var why = "whyOther";
    if (/^www\./.test(host) && names.indexOf(host) < 0) {
      why = "whyWWW";
    } else if (/^[a-z][a-z0-9+.-]*:\/\//.test(typed)) {
      why = "whyURL";
    } else if (typed.indexOf("@") >= 0) {
      why = "whyMailbox";
    }
    return t("scannedAs", { d: b.unicodeDomain || b.domain, why: t(why) });
  }

  // fixFirst lists the failing and warning checks, worst severity first
  // (a fail before a warn before a pass of the same severity, then the
  // contract's order), each linking to its card. A pass with a severity
  // above info has a problem under it (reports that go nowhere) and is
  // listed too. Checks that could not be determined are left out: there
  // is nothing to fix, only to scan again.
  var STATUS_RANK = { fail: 2, warn: 1, pass: 0 };
  // nxShown is set while the results are those of a name that does not
  // exist: its cards offer no fix.
  var nxShown = false;
  function needsFix(c) {
    return c.status === "fail" || c.status === "warn" || (c.status === "pass" && c.severity !== "info");
  }
  // oneCause returns the domain-side DNS fault that the failing checks
  // share, { key, checks }, when at least two failed for it and none for
  // another; null otherwise. The contract has no field for the fault: a
  // check failed for one carries one of the sentences the server embeds
  // in the page (mailauth.FaultSummaries), by fault.
  var faultSummaries = null;
  function oneCause(checks) {
    if (!faultSummaries) {
      try {
        faultSummaries = JSON.parse($("results").getAttribute("data-faults") || "{}");
      } catch (e) { faultSummaries = {}; }
    }
    var key = null, hit = [];
    for (var i = 0; i < checks.length; i++) {
      var c = checks[i];
      if (c.status !== "fail" || !c.summary) { continue; }
      for (var k in faultSummaries) {
        if (Object.prototype.hasOwnProperty.call(faultSummaries, k) && faultSummaries[k].indexOf(c.summary.en) >= 0) {
          if (key !== null && key !== k) { return null; }
          key = k;
          hit.push(c);
        }
      }
    }
    return hit.length >= 2 ? { key: key, checks: hit } : null;
  }

  function fixFirst(checks, cause) {
    var list = $("fix-first-list");
    list.textContent = "";
    var todo = checks.map(function (c, i) { return { c: c, i: i }; }).filter(function (x) {
      return needsFix(x.c) && !isUndetermined(x.c) && !(cause && cause.checks.indexOf(x.c) >= 0);
    });
    if (cause) {
      // One entry for the shared cause, linking the help on that fault,
      // with the checks it fails listed under it.
      var li = el("li", "cause st-fail");
      li.appendChild(icon("fail"));
      li.appendChild(document.createTextNode(" "));
      var a = el("a", null, t("cause_" + cause.key));
      a.href = "/help/" + encodeURIComponent(cause.checks[0].id) + "/#dns-faults";
      li.appendChild(a);
      li.appendChild(el("span", "fix-what", " — " + t("causeWhat", { n: cause.checks.length })));
      var sub = el("ul", "cause-checks");
      cause.checks.forEach(function (c) {
        var ca = el("a", null, loc(c.title));
        ca.href = "#check-" + c.id;
        sub.appendChild(el("li")).appendChild(ca);
      });
      li.appendChild(sub);
      list.appendChild(li);
    }
    todo.sort(function (a, b) {
      return (SEVERITY_RANK[b.c.severity] || 0) - (SEVERITY_RANK[a.c.severity] || 0) ||
        (STATUS_RANK[b.c.status] || 0) - (STATUS_RANK[a.c.status] || 0) || a.i - b.i;
    });
    todo.forEach(function (x) {
      var li = el("li", "st-" + x.c.status + " sev-" + x.c.severity);
      li.appendChild(icon(x.c.status));
      var a = el("a", null, loc(x.c.title));
      a.href = "#check-" + x.c.id;
      li.appendChild(document.createTextNode(" "));
      li.appendChild(a);
      li.appendChild(el("span", "fix-what", " — " + t("fixFirstWhat", {
        status: (STATUS[x.c.status] || STATUS.info)[lang],
        severity: (SEVERITY[x.c.severity] || { en: x.c.severity, zh: x.c.severity })[lang]
      })));
      list.appendChild(li);
    });
    $("fix-first-heading").textContent = t("fixFirst");
    $("fix-first").hidden = todo.length === 0 && !cause;
  }

  function render() {
    var b = last.body;
    var overview = $("overview");
    var cards = $("cards");
    overview.textContent = "";
    cards.textContent = "";
    var note = last.kind === "scan" ? scannedNote(last.input, b) : "";
    $("scanned-name").textContent = note;
    $("scanned-name").hidden = !note;
    $("fix-first").hidden = true;
    cards.classList.toggle("single", last.kind !== "scan");
    var fold = $("cards-fold");
    fold.hidden = true;
    fold.parentNode.insertBefore(cards, fold.nextSibling);
    nxShown = false;
    if (last.kind === "scan") {
      var missing = domainMissing(b);
      nxShown = missing;
      $("results-heading").textContent = t(missing ? "nxHeadline" : "resultsFor", { d: displayDomain(b) });
      if (missing) {
        // No grade, no score, no fix-first list: one message, the cards
        // folded under it, none of them offering a fix.
        overview.appendChild(nxBlock(b));
        overview.appendChild(factsBlock(b));
        $("cards-fold-summary").textContent = t("nxCards", { n: (b.checks || []).length });
        fold.hidden = false;
        fold.open = false;
        fold.appendChild(cards);
      } else {
        var cause = oneCause(b.checks || []);
        if (cause) {
          $("results-heading").textContent = t("causeHeadline_" + cause.key, { d: displayDomain(b), n: cause.checks.length });
        }
        overview.appendChild(scoreBlock(b));
        overview.appendChild(factsBlock(b));
        fixFirst(b.checks || [], cause);
      }
      (b.checks || []).forEach(function (c) { cards.appendChild(card(c)); });
    } else {
      $("results-heading").textContent = t("resultsForIP", { ip: b.sendingIp });
      overview.appendChild(factsBlock(b));
      cards.appendChild(card(b.check, true));
    }
    $("disclaimer").textContent = loc(b.disclaimer);
    renderChanges();
    renderLookalike();
  }

  // ---- look-alike names (the rules of internal/lookalike, whose
  // confusables table the server embeds) ----

  var SCRIPTS = [
    ["Latin", "拉丁字母"], ["Cyrillic", "西里尔字母"], ["Greek", "希腊字母"], ["Armenian", "亚美尼亚字母"],
    ["Han", "汉字"], ["Hiragana", "平假名"], ["Katakana", "片假名"], ["Hangul", "韩文字母"], ["Bopomofo", "注音符号"],
    ["Arabic", "阿拉伯字母"], ["Hebrew", "希伯来字母"], ["Thai", "泰文"], ["Georgian", "格鲁吉亚字母"],
    ["Cherokee", "切罗基字母"], ["Devanagari", "天城文"]
  ].map(function (s) { return { name: s[0], zh: s[1], re: new RegExp("^\\p{Script=" + s[0] + "}$", "u") }; });
  var SCRIPT_COMBOS = [["Latin", "Han", "Hiragana", "Katakana"], ["Latin", "Han", "Bopomofo"], ["Latin", "Han", "Hangul"]];
  var confusables = null;

  function scriptOf(ch) {
    if (!/^\p{L}$/u.test(ch)) { return ""; }
    for (var i = 0; i < SCRIPTS.length; i++) { if (SCRIPTS[i].re.test(ch)) { return SCRIPTS[i].name; } }
    return "Other";
  }

  // lookalike returns {mixed, whole, scripts, latin} for a name that
  // could pass for another, else null.
  function lookalike(name) {
    if (!confusables) {
      try { confusables = JSON.parse($("results").getAttribute("data-confusables") || "{}"); } catch (e) { confusables = {}; }
    }
    var mixed = false, whole = false, all = {};
    name.split(".").forEach(function (label) {
      var set = {};
      Array.from(label).forEach(function (ch) { var s = scriptOf(ch); if (s) { set[s] = true; all[s] = true; } });
      var names = Object.keys(set);
      var ok = SCRIPT_COMBOS.some(function (c) { return names.every(function (n) { return c.indexOf(n) >= 0; }); });
      if (names.length > 1 && !ok) { mixed = true; }
      var letters = Array.from(label).filter(function (ch) { return /^\p{L}$/u.test(ch); });
      if (names.length === 1 && names[0] !== "Latin" &&
          letters.every(function (ch) { return !!confusables[ch.toLowerCase()]; })) { whole = true; }
    });
    if (!mixed && !whole) { return null; }
    var latin = Array.from(name).map(function (ch) { return confusables[ch.toLowerCase()] || ch.toLowerCase(); }).join("");
    if (/[^\x00-\x7f]/.test(latin)) { latin = ""; }
    var scripts = Object.keys(all).filter(function (s) { return mixed || s !== "Latin"; }).sort(function (a, b) {
      if ((a === "Latin") !== (b === "Latin")) { return a === "Latin" ? 1 : -1; }
      return a < b ? -1 : 1;
    });
    return { mixed: mixed, scripts: scripts, latin: latin };
  }

  function renderLookalike() {
    var p = $("lookalike");
    var b = last && last.kind === "scan" ? last.body : null;
    var f = b && b.unicodeDomain ? lookalike(b.unicodeDomain) : null;
    p.hidden = !f;
    if (!f) { p.textContent = ""; return; }
    var names = f.scripts.map(function (s) {
      if (lang !== "zh") { return s; }
      var m = SCRIPTS.filter(function (x) { return x.name === s; })[0];
      return m ? m.zh : "其他文字";
    });
    var joined = lang === "zh" ? names.join(t("scriptAnd")) :
      (names.length > 1 ? names.slice(0, -1).join(", ") + t("scriptAnd") + names[names.length - 1] : names.join(""));
    var key = (f.mixed ? "lookMixed" : "lookWhole") + (f.latin ? "" : "Any");
    p.textContent = t(key, { scripts: joined, latin: f.latin });
  }

  // ---- "did my fix work?": the last result per domain, in this browser
  // only (localStorage, never sent), compared on a rescan ----

  var HISTORY_KEY = "mailauth.lastResults";
  var HISTORY_MAX = 50;
  // The service keeps DNS answers for their TTL, at most 5 minutes
  // (resolver.MaxCacheTTL).
  var CACHE_MS = 5 * 60 * 1000;

  function historyLoad() {
    try {
      var h = JSON.parse(window.localStorage.getItem(HISTORY_KEY) || "{}");
      return (h && typeof h === "object") ? h : {};
    } catch (e) { return {}; }
  }

  function historySave(h) {
    try { window.localStorage.setItem(HISTORY_KEY, JSON.stringify(h)); } catch (e) { /* private mode or full */ }
  }

  // remember stores the result's statuses under its domain and attaches
  // to the result the one stored before and whether its answers may come
  // from the service's DNS cache. The contract has no field for that:
  // a scan that took (almost) no time, or a rescan within the cache's
  // lifetime, may have been answered from it, and the page says "may".
  function remember(result) {
    var b = result.body || {};
    if (!b.domain || domainMissing(b)) { return; }
    var h = historyLoad();
    var prev = h[b.domain] || null;
    var at = Date.parse(b.scannedAt || "");
    var prevAt = prev ? Date.parse(prev.at || "") : NaN;
    result.prev = prev;
    result.cached = (typeof b.durationMs === "number" && b.durationMs <= 20) ||
      (!isNaN(at) && !isNaN(prevAt) && at - prevAt >= 0 && at - prevAt < CACHE_MS);
    var statuses = {};
    (b.checks || []).forEach(function (c) { statuses[c.id] = isUndetermined(c) ? "undetermined" : c.status; });
    h[b.domain] = { at: b.scannedAt || "", statuses: statuses };
    var keys = Object.keys(h);
    if (keys.length > HISTORY_MAX) {
      keys.sort(function (x, y) { return String(h[x].at).localeCompare(String(h[y].at)); });
      keys.slice(0, keys.length - HISTORY_MAX).forEach(function (k) { delete h[k]; });
    }
    historySave(h);
    if (result.cached) { setStatus("doneCached"); }
  }

  function forgetHistory() {
    try { window.localStorage.removeItem(HISTORY_KEY); } catch (e) { /* private mode */ }
    if (last) { last.prev = null; renderChanges(); }
    setStatus("forgotten");
  }

  function statusName(s) {
    if (s === "undetermined") { return t("notDetermined"); }
    return STATUS[s] ? STATUS[s][lang] || STATUS[s].en : s;
  }

  // renderChanges draws the cache note, the changes since the last check
  // of the domain (above the fix-first list) and the note on what this
  // browser keeps.
  function renderChanges() {
    var r = last;
    var scan = !!(r && r.kind === "scan");
    $("cache-note").hidden = !(scan && r.cached);
    setText($("cache-note"), scan && r.cached ? t("cacheNote") : "");
    var box = $("changes");
    var list = $("changes-list");
    list.textContent = "";
    box.hidden = true;
    var kept = Object.keys(historyLoad()).length > 0;
    setText($("history-text"), t(kept ? "historyKept" : "historyNone"));
    $("forget").hidden = !kept;
    if (!scan || !r.prev || nxShown) { return; }
    var bad = { fail: 2, warn: 1 };
    var same = 0;
    var changed = 0;
    var groups = { fixed: [], worse: [], other: [] };
    (r.body.checks || []).forEach(function (c) {
      var was = r.prev.statuses[c.id];
      var now = isUndetermined(c) ? "undetermined" : c.status;
      if (!was || was === now) { same += was ? 1 : 0; return; }
      changed++;
      var key = "changeOther";
      var cls = "";
      if ((bad[was] || 0) > (bad[now] || 0) && now !== "undetermined") { key = "changeFixed"; cls = "fixed"; }
      if ((bad[now] || 0) > (bad[was] || 0)) { key = "changeWorse"; cls = "worse"; }
      var li = el("li", cls);
      li.setAttribute("data-change", cls || "other");
      li.setAttribute("data-check", c.id);
      li.textContent = t(key, { t: loc(c.title), from: statusName(was), to: statusName(now) });
      groups[cls || "other"].push(li);
    });
    // Fixed first (the answer to "did my fix work?"), then what newly
    // fails, then other changes.
    groups.fixed.concat(groups.worse, groups.other).forEach(function (li) { list.appendChild(li); });
    if (!changed) { list.appendChild(el("li", null, t("changeNone"))); }
    if (changed && same) { list.appendChild(el("li", null, t("changeSame", { n: same }))); }
    var d = new Date(r.prev.at);
    $("changes-heading").textContent = t("changesHeading", {
      when: isNaN(d.getTime()) ? "?" : d.toLocaleString(lang === "zh" ? "zh-CN" : "en")
    });
    box.hidden = false;
  }

  // nxBlock is the one message of a name that does not exist, in place
  // of the grade: no grade and no score, and, when the server's summary
  // says the last label is not a top-level domain, that sentence.
  function nxBlock(b) {
    var box = el("div", "nx-box");
    box.appendChild(el("p", "nx-message", t("nxNoGrade")));
    var s = loc(b.summary || {});
    var en = (b.summary && b.summary.en) || "";
    if (en.indexOf("is not a top-level domain") >= 0) {
      var i = s.lastIndexOf(lang === "zh" ? "“." : "\".");
      if (i >= 0) { box.appendChild(el("p", "nx-tld", s.slice(i))); }
    }
    return box;
  }

  // An internationalized name is shown with its A-label beside it, as the
  // CLI shows it: a name in another script, or mixing scripts, can look
  // like a familiar one ("аpple.com" with a Cyrillic а is xn--pple-43d.com).
  function displayDomain(b) {
    if (b.unicodeDomain && b.unicodeDomain !== b.domain) {
      return b.unicodeDomain + " (" + b.domain + ")";
    }
    return b.domain;
  }

  function scoreBlock(b) {
    var box = el("div", "score-box");
    var badge = el("div", "grade grade-" + String(b.grade).toLowerCase());
    badge.setAttribute("role", "img");
    badge.setAttribute("aria-label", t("gradeLabel", { g: b.grade, n: b.score }));
    badge.appendChild(el("span", "grade-letter", b.grade));
    box.appendChild(badge);
    var right = el("div", "score-text");
    var sc = el("p", "score");
    sc.appendChild(el("span", "score-num", String(b.score)));
    sc.appendChild(el("span", "score-max", " / 100"));
    sc.setAttribute("aria-hidden", "true");
    right.appendChild(sc);
    right.appendChild(el("p", "overall", loc(b.summary)));
    right.appendChild(countsList(b.counts || {}));
    right.appendChild(el("p", "covers", coverage(b)));
    box.appendChild(right);
    return box;
  }

  function countsList(counts) {
    var ul = el("ul", "counts");
    ul.setAttribute("aria-label", t("counts"));
    ["pass", "warn", "fail", "info"].forEach(function (s) {
      var li = el("li", "count st-" + s);
      li.appendChild(icon(s));
      li.appendChild(el("span", null, " " + STATUS[s][lang] + " " + (counts[s] || 0)));
      ul.appendChild(li);
    });
    return ul;
  }

  // coverage says how many checks the score covers: the evaluated ones
  // that could be determined.
  function coverage(b) {
    var checks = b.checks || [];
    var info = checks.filter(function (c) { return c.status === "info"; }).length;
    var und = checks.filter(isUndetermined).length;
    return t("covers", { n: checks.length - info - und, total: checks.length, u: und, i: info });
  }

  function factsBlock(b) {
    var dl = el("dl", "facts");
    var add = function (k, v) {
      if (v === null || v === undefined || v === "") { return; }
      dl.appendChild(el("dt", null, t(k)));
      dl.appendChild(el("dd", null, v));
    };
    if (b.dkimSelector) { add("selectorUsed", b.dkimSelector); }
    if (last.kind === "scan") { add("ipUsed", b.sendingIp); }
    var when = b.scannedAt || b.checkedAt;
    if (when) {
      var d = new Date(when);
      add("checkedAt", isNaN(d.getTime()) ? when : d.toLocaleString(lang === "zh" ? "zh-CN" : "en"));
    }
    add("duration", t("ms", { n: b.durationMs }));
    return dl;
  }

  function icon(status) {
    var s = status === "undetermined" ? { icon: "?" } : (STATUS[status] || STATUS.info);
    var i = el("span", "icon", s.icon);
    i.setAttribute("aria-hidden", "true");
    return i;
  }

  // card draws one check. A fail is drawn in red only when it matters
  // (medium severity and up); pass and info cards print no severity; a
  // check that could not be determined is greyed.
  function card(c, open) {
    var und = isUndetermined(c);
    var li = el("li", "card st-" + c.status + " sev-" + c.severity + (und ? " undetermined" : ""));
    li.id = "check-" + c.id;
    var head = el("div", "card-head");
    var h3 = el("h3", "card-title");
    h3.appendChild(icon(und ? "undetermined" : c.status));
    h3.appendChild(el("span", null, " " + loc(c.title)));
    head.appendChild(h3);
    var tags = el("p", "tags");
    var st = el("span", "tag status-tag st-" + c.status + " sev-" + c.severity,
      und ? t("notDetermined") : (STATUS[c.status] || STATUS.info)[lang]);
    st.setAttribute("title", t("status"));
    tags.appendChild(st);
    if (c.severity !== "info" && !und) {
      var sevWord = (SEVERITY[c.severity] || { en: c.severity, zh: c.severity })[lang];
      tags.appendChild(el("span", "tag sev-tag sev-" + c.severity, t("severity") + (lang === "zh" ? "：" : ": ") + sevWord));
    }
    head.appendChild(tags);
    li.appendChild(head);
    li.appendChild(el("p", "card-summary", loc(c.summary)));
    var help = el("a", "help-link", t(needsFix(c) && !nxShown ? "helpFix" : "helpAbout"));
    help.href = helpHref(c);
    help.appendChild(el("span", "visually-hidden", t("helpOf", { t: loc(c.title) })));
    li.appendChild(el("p", "card-help")).appendChild(help);
    var det = el("details", "card-details");
    if (open) { det.open = true; }
    var sum = el("summary", null, t("details"));
    sum.appendChild(el("span", "visually-hidden", t("detailsOf", { t: loc(c.title) })));
    det.appendChild(sum);
    det.appendChild(el("p", "card-text", loc(c.details)));
    if (c.diagnostics) { det.appendChild(diagTable(c)); }
    li.appendChild(det);
    return li;
  }

  // helpHref is the address of the help on a card's finding: the check's
  // help page, at the anchor of the finding that sets its summary. The
  // contract has no field for the finding: the server embeds every
  // finding as [check, id, pattern] (httpapi/findingids.go), the pattern
  // matching its English sentence with any counts; a summary that matches
  // none links to the top of the page.
  var findingTable = null;
  function findingID(c) {
    if (!findingTable) {
      findingTable = [];
      try {
        JSON.parse($("results").getAttribute("data-findings") || "[]").forEach(function (f) {
          findingTable.push({ check: f[0], id: f[1], re: new RegExp(f[2]) });
        });
      } catch (e) { findingTable = []; }
    }
    var en = (c.summary && c.summary.en) || "";
    for (var i = 0; i < findingTable.length; i++) {
      var f = findingTable[i];
      if ((f.check === "" || f.check === c.id) && f.re.test(en)) { return f.id; }
    }
    return "";
  }
  function helpHref(c) {
    var id = findingID(c);
    return "/help/" + encodeURIComponent(c.id) + "/" + (id ? "#" + encodeURIComponent(id) : "");
  }

  function diagTable(c) {
    var wrap = el("div", "diag-wrap");
    var table = el("table", "diag");
    table.appendChild(el("caption", null, t("diagnosticsCaption", { t: loc(c.title) })));
    var thead = el("thead");
    var hr = el("tr");
    hr.appendChild(el("th", null, t("fact"))).setAttribute("scope", "col");
    hr.appendChild(el("th", null, t("value"))).setAttribute("scope", "col");
    thead.appendChild(hr);
    table.appendChild(thead);
    var tbody = el("tbody");
    var known = FIELDS[c.id] || [];
    var seen = {};
    known.forEach(function (f) {
      if (Object.prototype.hasOwnProperty.call(c.diagnostics, f[0])) {
        seen[f[0]] = true;
        tbody.appendChild(diagRow(lang === "zh" ? f[2] : f[1], f[0], c.diagnostics));
      }
    });
    Object.keys(c.diagnostics).forEach(function (k) {
      if (!seen[k]) { tbody.appendChild(diagRow(k, k, c.diagnostics)); }
    });
    table.appendChild(tbody);
    wrap.appendChild(table);
    return wrap;
  }

  function diagRow(label, key, d) {
    var v = d[key];
    var tr = el("tr");
    var th = el("th", null, label);
    th.setAttribute("scope", "row");
    tr.appendChild(th);
    var td = el("td", null, value(key, v));
    // An incompletely expanded SPF tree gives a lower bound (contract).
    if (key === "dnsLookupCount" && typeof v === "number" && d.lookupComplete === false) {
      td.textContent = t("atLeast", { n: v });
    }
    if (v === null) { td.className = "unknown"; }
    tr.appendChild(td);
    return tr;
  }

  function value(key, v) {
    if (v === null || v === undefined) { return t("unknown"); }
    if (v === true) { return t("yes"); }
    if (v === false) { return t("no"); }
    if (key === "maxAge" && typeof v === "number") {
      return t("seconds", { n: v.toLocaleString(lang === "zh" ? "zh-CN" : "en"), d: Math.round(v / 8640) / 10 });
    }
    if (typeof v === "number") { return String(v); }
    if (key === "policyDomain") { return String(v); }
    var w = WORDS[v];
    return w ? w[lang] : String(v);
  }

  // ---- start ----

  function init() {
    lang = initialLang();
    applyLang();
    $("lang-toggle").addEventListener("click", switchLang);
    $("mode-domain").addEventListener("change", function () { setMode("domain"); hideAlert(); });
    $("mode-ip").addEventListener("change", function () { setMode("ip"); hideAlert(); });
    $("scan-form").addEventListener("submit", submitScan);
    $("ptr-form").addEventListener("submit", submitPtr);
    $("retry").addEventListener("click", function () { if (retryFn) { retryFn(); } });
    $("forget").addEventListener("click", forgetHistory);
    // A shared link fills the form and waits for the person to press
    // Check: a link must not run a check of a name dressed up to look
    // like another, nor spend the visitor's allowance, by itself.
    var f = readFragment();
    if (f && f.mode === "ip") {
      setMode("ip");
      $("ptr-ip").value = f.ip;
      $("ptr-form").querySelector("button[type=submit]").focus();
    } else if (f) {
      setMode("domain");
      $("domain").value = f.domain;
      $("selector").value = f.selector;
      $("sending-ip").value = f.ip;
      $("scan-form").querySelector("button[type=submit]").focus();
    }
  }

  init();
}());
