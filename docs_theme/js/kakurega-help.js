// What the theme's inline script set (the page's Content-Security-Policy allows no inline script): the site's
// base URL, relative to this page, and the keyboard shortcuts, from this script tag's data attributes.
(function () {
  var tag = document.currentScript;
  window.base_url = tag.getAttribute("data-base-url");
  window.shortcuts = JSON.parse(tag.getAttribute("data-shortcuts"));
})();
