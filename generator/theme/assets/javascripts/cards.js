// On a phone or a narrow window (below DESKTOP_PX), a table wider than its box (no cell may break inside a word,
// readers.css) becomes a stack of cards, one per row, each cell labelled with its column's header, instead of
// scrolling sideways. From DESKTOP_PX up a table is never cards: a desktop reader reads across rows, and the few
// tables still wider than their box there scroll sideways inside it (the theme's scrolling box). Checked again on
// every page the theme shows and when the window changes size, so a table that fits stays a table.
(() => {
  const DESKTOP_PX = 1024;
  const label = table => {
    const headers = [...table.querySelectorAll("thead th")].map(th => th.textContent.trim());
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.children].forEach((cell, i) => {
        if (headers[i]) cell.dataset.label = headers[i];
      });
    }
  };
  const stack = () => {
    const desktop = window.innerWidth >= DESKTOP_PX;
    for (const table of document.querySelectorAll(".md-typeset table:not([class])")) {
      delete table.dataset.fwCards;
      // the theme wraps each table in a scrolling box; before it has, the table scrolls itself
      const box = table.closest(".md-typeset__scrollwrap") || table;
      if (!desktop && box.scrollWidth > box.clientWidth + 1) {
        label(table);
        table.dataset.fwCards = "";
      }
    }
    document.documentElement.dataset.fwCardsChecked = "";  // the page's tables are final: what its readers see
  };
  let pending = null;
  const later = () => {
    clearTimeout(pending);
    pending = setTimeout(stack, 50);
  };
  window.addEventListener("resize", later);
  if (window.document$) window.document$.subscribe(later);  // Material's page-shown signal
  else window.addEventListener("load", later);
})();
