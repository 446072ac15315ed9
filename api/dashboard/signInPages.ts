import { html, type Html } from "./html.ts";
import { plainPage } from "./layout.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./passwords.ts";

/** The sign-in form; `problem` is said above it (the same words for an unknown e-mail and a wrong password). */
export function signInPage(assets: string, options: { next: string; email?: string; problem?: string; notice?: string }): string {
  return plainPage(assets, {
    title: "Sign in",
    body: html`${options.notice ? html`<p role="status" class="notice">${options.notice}</p>` : null}
${options.problem ? html`<p role="alert" class="problem" id="sign-in-problem">${options.problem}</p>` : null}
<form method="post" action="/dashboard/sign-in" class="stack"${options.problem ? html` aria-describedby="sign-in-problem"` : null}>
  <input type="hidden" name="next" value="${options.next}">
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ""}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="${MAX_PASSWORD_LENGTH}">
  <label for="totp">Authentication code <span class="hint">(only if you turned on two-step sign-in)</span></label>
  <input id="totp" name="totp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8">
  <button type="submit">Sign in</button>
</form>`,
  });
}

/** The page an invitation link opens: choose a name and a password. */
export function invitePage(assets: string, options: { token: string; email: string; problem?: string }): string {
  const problem: Html | null = options.problem ? html`<p role="alert" class="problem" id="invite-problem">${options.problem}</p>` : null;
  return plainPage(assets, {
    title: "Accept your invitation",
    body: html`<p>You were invited as <strong>${options.email}</strong>. Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.</p>
${problem}
<form method="post" action="/dashboard/invite/${options.token}" class="stack">
  <label for="name">Your name</label>
  <input id="name" name="name" autocomplete="name" maxlength="100">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}">
  <label for="confirm">Password again</label>
  <input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}">
  <button type="submit">Set password</button>
</form>`,
  });
}
