// mailauth developer and help pages: the language toggle (the pages hold
// both languages; CSS shows one) and the examples' base URL, which becomes
// this page's own origin. No framework, no build step; it runs under the
// pages' Content-Security-Policy.
"use strict";

(function () {
  var LANG_KEY = "mailauth.lang"; // shared with the web page (app.js)
  var DEFAULT_BASE = "http://127.0.0.1:8080";

  function initialLang() {
    var stored = null;
    try { stored = window.localStorage.getItem(LANG_KEY); } catch (e) { stored = null; }
    if (stored === "zh" || stored === "en") { return stored; }
    var nav = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
    return /^zh\b/i.test(nav) ? "zh" : "en";
  }

  function apply(lang) {
    var root = document.documentElement;
    root.lang = lang === "zh" ? "zh-CN" : "en";
    root.setAttribute("data-lang", lang);
    var b = document.getElementById("lang-toggle");
    b.textContent = lang === "zh" ? "English" : "中文";
    b.setAttribute("lang", lang === "zh" ? "en" : "zh-CN");
    b.setAttribute("aria-label", lang === "zh" ? "Switch to English" : "切换到中文");
  }

  // The examples name the default address of `mailauth serve`; in a
  // browser they name the origin the page came from instead.
  function setBase() {
    var origin = window.location.origin;
    if (!/^https?:\/\//.test(origin) || origin === DEFAULT_BASE) { return; }
    document.querySelectorAll("pre code").forEach(function (c) {
      if (c.textContent.indexOf(DEFAULT_BASE) >= 0) {
        c.textContent = c.textContent.split(DEFAULT_BASE).join(origin);
      }
    });
  }

  var lang = initialLang();
  apply(lang);
  var toggle = document.getElementById("lang-toggle");
  toggle.hidden = false;
  toggle.addEventListener("click", function () {
    lang = lang === "zh" ? "en" : "zh";
    try { window.localStorage.setItem(LANG_KEY, lang); } catch (e) { /* private mode */ }
    apply(lang);
  });
  setBase();
}());
