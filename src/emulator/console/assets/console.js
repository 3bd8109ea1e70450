// The console's only script (served from /console/assets, allowed by the page's
// Content-Security-Policy; no inline script anywhere). It refreshes the live part of the page
// every two seconds while the page is visible, and sends the controls to the emulator's control
// plane with the session's CSRF token. The session cookie is HttpOnly: this script never sees it,
// and it never sees the API key.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]');
  const live = document.getElementById("live");
  const notice = document.getElementById("notice");

  function say(text, isError) {
    if (!notice) return;
    notice.textContent = text;
    notice.className = isError ? "error" : "ok";
    notice.hidden = false;
  }

  async function refresh() {
    if (!live || document.visibilityState !== "visible") return;
    const res = await fetch(location.href, { headers: { "x-console-refresh": "1" }, credentials: "same-origin" });
    if (res.status === 401) {
      location.assign("/console/sign-in");
      return;
    }
    if (res.ok) {
      live.innerHTML = await res.text();
      live.dataset.refreshedAt = String(Date.now());
    }
  }

  async function call(method, url, body) {
    const init = { method, credentials: "same-origin", headers: { "x-csrf-token": csrf ? csrf.content : "" } };
    if (body !== undefined && body !== null) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(url, init);
    const text = await res.text();
    let answer = null;
    try {
      answer = text ? JSON.parse(text) : null;
    } catch {
      answer = null;
    }
    if (!res.ok) {
      const detail = answer && answer.detail ? answer.detail : text;
      say(`${method} ${url} answered ${res.status}: ${detail}`, true);
      return null;
    }
    return answer || {};
  }

  async function afterChange(message) {
    say(message, false);
    await refresh();
  }

  /** One control: the button is disabled while its call runs; the page refreshes after it. */
  async function press(button, method, url, body) {
    button.disabled = true;
    try {
      if (await call(method, url, body)) await afterChange(`${button.textContent}: done`);
    } finally {
      button.disabled = false;
    }
  }

  document.addEventListener("click", async (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const button = target && target.closest("button[data-call]");
    if (button) {
      const [method, url] = button.dataset.call.split(" ");
      await press(button, method, url, button.dataset.body ? JSON.parse(button.dataset.body) : undefined);
      return;
    }
    // Outside events take the id from their row (data-pod-id or data-endpoint-id).
    const outside = target && target.closest("button[data-event]");
    if (outside) {
      const row = outside.closest("tr");
      const type = outside.dataset.event;
      const body = type === "deleteEndpoint" ? { type, endpointId: row.dataset.endpointId } : { type, podId: row.dataset.podId };
      await press(outside, "POST", "/console/emulator/events", body);
      return;
    }
    if (target && target.closest("button[data-sign-out]")) {
      const answer = await call("POST", "/console/sign-out");
      if (answer) location.assign(answer.location || "/console/sign-in");
    }
  });

  async function currentFaults() {
    const res = await fetch("/console/emulator/faults", { credentials: "same-origin" });
    return res.ok ? res.json() : null;
  }

  const forms = {
    async rates(form) {
      const data = new FormData(form);
      const pct = (name) => Number(data.get(name)) / 100;
      return {
        rate429: pct("rate429"),
        rate5xx: pct("rate5xx"),
        dropAfterProcessRate: pct("dropAfterProcessRate"),
        slowMs: Number(data.get("slowMs")),
      };
    },
    async noCapacity(form) {
      const data = new FormData(form);
      const now = await currentFaults();
      if (!now) return null;
      const entry = { gpuId: String(data.get("gpuId")) };
      if (data.get("dataCenterId")) entry.dataCenterId = String(data.get("dataCenterId"));
      return { noCapacity: [...now.noCapacity, entry] };
    },
    async errorImages(form) {
      const now = await currentFaults();
      if (!now) return null;
      return { errorImages: [...now.errorImages, String(new FormData(form).get("pattern"))] };
    },
  };

  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.form) return;
    event.preventDefault();
    const body = await forms[form.dataset.form](form);
    if (body && (await call("PATCH", "/console/emulator/faults", body))) await afterChange("Faults set");
  });

  document.addEventListener("change", (event) => {
    const select = event.target;
    if (select instanceof HTMLSelectElement && select.hasAttribute("data-auto-submit") && select.form) select.form.submit();
  });

  const every = live ? Number(live.dataset.refreshMs) || 2000 : 0;
  if (every > 0) {
    setInterval(() => {
      refresh().catch(() => undefined);
    }, every);
    document.addEventListener("visibilitychange", () => {
      refresh().catch(() => undefined);
    });
  }
})();
