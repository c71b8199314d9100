// The printable CV's "Print this CV" button (pages/cv.html): a file, since the CSP refuses
// inline scripts.
document.querySelectorAll("[data-print]").forEach((button) => {
  button.addEventListener("click", () => window.print());
});
