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
