/* arena serve: the start page. The name a player chooses is kept in this browser (localStorage, and a cookie
   so that a friend's link opened later seats them by name too) and sent with Quick Play, Create and Join;
   the server cleans and limits it. Plain JavaScript, nothing from outside. */
(function () {
  "use strict";
  var field = document.getElementById("nickname");
  if (!field) return;
  var KEY = "arena.nickname";
  function stored() { try { return localStorage.getItem(KEY) || ""; } catch (e) { return ""; } }
  function keep(v) {
    try { if (v) localStorage.setItem(KEY, v); else localStorage.removeItem(KEY); } catch (e) { /* private mode */ }
    document.cookie = "nick=" + encodeURIComponent(v) + "; path=/; max-age=" + (v ? 365 * 86400 : 0) + "; samesite=lax";
  }
  function sync() {
    var v = field.value.trim();
    Array.prototype.forEach.call(document.querySelectorAll("input.nick-copy"), function (i) { i.value = v; });
    return v;
  }
  if (!field.value) field.value = stored();
  sync();
  field.addEventListener("input", sync);
  field.addEventListener("change", function () { keep(sync()); });
  Array.prototype.forEach.call(document.querySelectorAll("form"), function (f) {
    f.addEventListener("submit", function () { keep(sync()); });
  });
})();
