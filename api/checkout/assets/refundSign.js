/*
 * Signing a refund request with the wallet that paid: the text is `refundMessage`
 * (served from the server's own definition), signed as the payment's rail asks
 * (`view.refundSigner`): `eip1193` — the injected `window.ethereum`, EIP-191
 * `personal_sign`; `solana` — an injected Solana wallet's `signMessage`. Signing moves
 * no money; the service checks the signature is a paying address's.
 */

/** The browser wallet that signs for `protocol`, if the page has one. */
export function signerFor(protocol) {
  if (protocol === "eip1193") return typeof window.ethereum?.request === "function" ? window.ethereum : null;
  if (protocol === "solana") {
    const wallet = window.phantom?.solana ?? window.solana;
    return typeof wallet?.signMessage === "function" ? wallet : null;
  }
  return null;
}

/** UTF-8 bytes of `text` as 0x-hex (what `personal_sign` takes). */
const hexOf = (text) => `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, "0")).join("")}`;

/** Bytes as base64 (the service takes a Solana signature in base58 or base64). */
const base64Of = (bytes) => btoa(String.fromCharCode(...bytes));

/**
 * `message` signed by the wallet's account: 0x-hex on EVM, base64 on Solana. The wallet's
 * own errors (declined: 4001) are thrown as they come.
 */
export async function signRefundMessage(protocol, wallet, message) {
  if (protocol === "eip1193") {
    const [account] = await wallet.request({ method: "eth_requestAccounts" });
    if (!account) throw Object.assign(new Error("no account"), { code: 4001 });
    return wallet.request({ method: "personal_sign", params: [hexOf(message), account] });
  }
  if (protocol === "solana") {
    if (typeof wallet.connect === "function" && !wallet.publicKey) await wallet.connect();
    const signed = await wallet.signMessage(new TextEncoder().encode(message), "utf8");
    // Injected wallets answer `{signature, publicKey}`; some, the signature bytes alone.
    return base64Of(signed?.signature ?? signed);
  }
  throw new Error(`no signer for ${protocol}`);
}
