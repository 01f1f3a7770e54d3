/* arena serve --watch: when the database changes, fetch this page again and swap in its content (the
   standings, the progress line), without a reload. */
(function () {
  "use strict";
  if (!window.EventSource) return;
  var source = new EventSource("/events");
  var busy = false;
  source.onmessage = function () {
    if (busy) return;
    busy = true;
    fetch(location.pathname, { cache: "no-store" }).then(function (r) { return r.text(); }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var fresh = doc.getElementById("main"), main = document.getElementById("main");
      if (fresh && main) main.innerHTML = fresh.innerHTML;
      document.body.setAttribute("data-updates", String(Number(document.body.getAttribute("data-updates") || 0) + 1));
    }).catch(function () {}).then(function () { busy = false; });
  };
})();
