// The main navigation folds behind a "Menu" button on narrow screens (the breakpoint is the CSS one: the button
// is only displayed there). Without JavaScript the button stays hidden and the links stay open.
(function () {
  "use strict";
  const nav = document.getElementById("site-nav");
  if (!nav) return;
  const toggle = nav.querySelector(".nav-toggle");
  const narrow = window.matchMedia("(max-width: 48rem)");
  function fold() {
    const closed = narrow.matches;
    nav.classList.toggle("folded", closed);
    toggle.setAttribute("aria-expanded", String(!closed));
  }
  toggle.hidden = false;
  toggle.addEventListener("click", () => {
    const open = nav.classList.toggle("folded") === false;
    toggle.setAttribute("aria-expanded", String(open));
  });
  narrow.addEventListener("change", fold);
  fold();
})();

// A region that scrolls inside itself (a wide table on a phone, a .scroll box) and holds nothing focusable gets
// tabindex=0, so a keyboard can reach it and scroll it with the arrow keys (axe: scrollable-region-focusable). Only
// while it really scrolls: at a width where it fits, it is no extra Tab stop. The maps' panes are Leaflet's.
(function () {
  "use strict";
  const main = document.querySelector("main");
  if (!main) return;
  const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";  // not shown
  const SCROLLS = /^(auto|scroll)$/;
  function scrolls(element) {
    const style = getComputedStyle(element);
    return (SCROLLS.test(style.overflowX) && element.scrollWidth > element.clientWidth + 1)
      || (SCROLLS.test(style.overflowY) && element.scrollHeight > element.clientHeight + 1);
  }
  function update() {
    for (const element of main.querySelectorAll("[data-scroll-focus]")) {
      if (!scrolls(element)) { element.removeAttribute("tabindex"); element.removeAttribute("data-scroll-focus"); }
    }
    for (const element of main.querySelectorAll("table, pre, div, section, figure, ul, ol, dl")) {
      if (element.hasAttribute("tabindex") || element.closest(".leaflet-container") || !scrolls(element)) continue;
      if (element.querySelector(FOCUSABLE)) continue;
      element.tabIndex = 0;
      element.dataset.scrollFocus = "";
    }
  }
  let pending = false;
  function soon() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; update(); });
  }
  window.addEventListener("resize", soon);
  new MutationObserver(soon).observe(main, {childList: true, subtree: true});  // tables a page's script builds
  update();
})();
