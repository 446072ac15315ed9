/*
 * "Pay with wallet": drives the browser's injected EIP-1193 wallet (window.ethereum)
 * through what the payment's view lists under `wallet` (protocol "eip1193"): connect,
 * switch to the payment's chain, check the token balance, then send each transaction
 * and wait until it is mined before the next (approve, then pay; or one transfer).
 * The service notices the payment on chain by itself; this page only reports progress,
 * and says what went wrong in words a customer understands.
 */
import { format, formatAmount, payingOf } from "./status.js";

/** A failure to tell the customer about: a message key and its values. */
class WalletProblem extends Error {
  /** `sent`: the payment's transaction had left the wallet when this happened (the money may be on its way). */
  constructor(key, values = {}, sent = false) {
    super(key);
    this.key = key;
    this.values = values;
    this.sent = sent;
  }
}

/** Smallest units (a decimal integer string) as a decimal string with `decimals` places, exactly. */
function unitsToDecimal(units, decimals) {
  const digits = BigInt(units).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

const sameChain = (a, b) => BigInt(a) === BigInt(b);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a wallet error means for the customer (EIP-1193 codes first, then the usual node messages). */
function explain(error) {
  if (error instanceof WalletProblem) return error;
  const code = error?.code ?? error?.data?.originalError?.code;
  const text = String(error?.message ?? error ?? "");
  if (code === 4001 || /reject|denied|declined|cancel/i.test(text)) return new WalletProblem("errorRejected");
  if (code === 4902) return new WalletProblem("errorUnknownNetwork");
  if (code === -32002) return new WalletProblem("errorBusy");
  if (/insufficient funds/i.test(text)) return new WalletProblem("errorGas");
  return new WalletProblem("errorWallet", { message: text.split("\n")[0].slice(0, 200) });
}

async function waitForReceipt(provider, hash) {
  for (let i = 0, failures = 0; i < 1200; i++) {
    // A lookup the wallet's node refuses (rate-limited, briefly down) is asked again, up to a few times in a row.
    const receipt = await provider.request({ method: "eth_getTransactionReceipt", params: [hash] }).then(
      (answer) => ((failures = 0), answer),
      (error) => {
        if (++failures >= 5) throw error;
        return null;
      },
    );
    if (receipt) return receipt;
    await sleep(1000);
  }
  throw new WalletProblem("errorWallet", { message: hash });
}

/** An address or a quantity as one 32-byte ABI word (hex, no 0x). */
const word = (hex) => hex.toLowerCase().replace(/^0x/, "").padStart(64, "0");

/**
 * The plan's transactions as `account` must send them now. An approval the token already
 * holds (a try whose approve was mined but whose pay was not) is skipped; a smaller one
 * left from before is first set back to 0, since some tokens (USDT on Ethereum) refuse to
 * change a non-zero allowance to another non-zero one.
 */
async function transactionsFor(provider, account, plan) {
  const transactions = [];
  for (const tx of plan.transactions) {
    if (tx.description !== "approve") {
      transactions.push(tx);
      continue;
    }
    // approve(address spender, uint256 amount): the selector, then one word each.
    const spender = `0x${tx.data.slice(34, 74)}`;
    const wanted = BigInt(`0x${tx.data.slice(74, 138)}`);
    // allowance(owner, spender): selector 0xdd62ed3e.
    const allowed = BigInt(await provider.request({ method: "eth_call", params: [{ to: tx.to, data: `0xdd62ed3e${word(account)}${word(spender)}` }, "latest"] }));
    if (allowed >= wanted) continue;
    if (allowed > 0n) transactions.push({ description: "resetApproval", to: tx.to, data: `0x095ea7b3${word(spender)}${word("0")}`, value: "0" });
    transactions.push(tx);
  }
  return transactions;
}

/** Sends the view's wallet transactions through `provider`; `progress` gets each step's message. */
export async function payWith(provider, view, t, locale, progress) {
  const plan = view.wallet;
  // Where the wallet pays: the payment's chain, or a cross-chain payment's origin chain.
  const paying = payingOf(view);
  const network = paying.network;
  const amount = formatAmount(unitsToDecimal(plan.amount, paying.decimals), locale);
  progress(t.walletConnecting);
  const [account] = await provider.request({ method: "eth_requestAccounts" });
  if (!account) throw new WalletProblem("errorRejected");

  if (!sameChain(await provider.request({ method: "eth_chainId" }), plan.chain)) {
    progress(format(t.walletSwitching, { network }));
    try {
      await provider.request({ method: "wallet_switchEthereumChain", params: [{ chainId: plan.chain }] });
    } catch (error) {
      if (error?.code === 4902) throw new WalletProblem("errorUnknownNetwork");
      if (error?.code === 4001) throw new WalletProblem("errorWrongNetwork");
      throw error;
    }
    if (!sameChain(await provider.request({ method: "eth_chainId" }), plan.chain)) throw new WalletProblem("errorWrongNetwork");
  }

  progress(t.walletChecking);
  // ERC-20 balanceOf(account): selector 0x70a08231, then the address as one 32-byte word.
  const data = `0x70a08231${account.toLowerCase().replace(/^0x/, "").padStart(64, "0")}`;
  const balance = BigInt(await provider.request({ method: "eth_call", params: [{ to: plan.token, data }, "latest"] }));
  if (balance < BigInt(plan.amount)) {
    throw new WalletProblem("errorBalance", { balance: formatAmount(unitsToDecimal(balance, paying.decimals), locale), amount, token: paying.token });
  }

  const transactions = await transactionsFor(provider, account, plan);
  const steps = transactions.length;
  for (const [index, tx] of transactions.entries()) {
    const action = t[`action${tx.description[0].toUpperCase()}${tx.description.slice(1)}`] ?? tx.description;
    const step = index + 1;
    progress(format(t.walletConfirm, { step, steps, action: format(action, { amount, token: paying.token }) }));
    const hash = await provider.request({
      method: "eth_sendTransaction",
      params: [{ from: account, to: tx.to, data: tx.data, value: `0x${BigInt(tx.value).toString(16)}` }],
    });
    progress(format(t.walletMining, { step, steps }));
    // Once the transaction that moves the money is out, a failure to see it mined is no failure
    // to pay: the customer must not be invited to pay again (the caller keeps the button hidden).
    const movesMoney = tx.description !== "approve" && tx.description !== "resetApproval";
    const receipt = await waitForReceipt(provider, hash).catch((error) => {
      throw movesMoney ? new WalletProblem("walletUnconfirmed", {}, true) : error;
    });
    if (receipt.status !== "0x1" && receipt.status !== 1 && receipt.status !== "success") throw new WalletProblem("errorReverted");
  }
}

/** Wires the button; `update(view, paying)` shows it only while there is something to pay and a wallet to pay with. */
export function setUpWallet({ t, locale, getView }) {
  const button = document.getElementById("wallet-pay");
  const none = document.getElementById("wallet-none");
  const message = document.getElementById("wallet-message");
  const alert = document.getElementById("wallet-error");
  let busy = false;
  let paying = false;
  // What the view said when the customer's transactions were mined: until the service has
  // seen them (the view moves on), the button stays hidden, so a second click cannot pay twice.
  let sentAt = null;
  const progressOf = (view) => JSON.stringify([view.status, view.amountReceived, view.bridgeStatus ?? null, view.crossChain?.bridgeStatus ?? null]);

  function update(view, isPaying) {
    paying = isPaying;
    if (sentAt !== null && sentAt !== progressOf(view)) {
      sentAt = null;
      message.textContent = "";
    }
    const usable = isPaying && view.wallet?.protocol === "eip1193" && sentAt === null;
    const provider = typeof window.ethereum?.request === "function";
    button.hidden = !(usable && provider);
    none.hidden = !(usable && !provider);
    button.disabled = busy;
  }

  button.addEventListener("click", async () => {
    if (busy) return;
    busy = true;
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    alert.textContent = "";
    const view = getView();
    try {
      await payWith(window.ethereum, view, t, locale, (text) => (message.textContent = text));
      message.textContent = t.walletDone;
      // As the view was when the customer clicked: one that moved on meanwhile shows the button again at once.
      sentAt = progressOf(view);
      update(getView(), paying);
    } catch (error) {
      const problem = explain(error);
      if (problem.sent) {
        // Out, but not seen mined: as after a success, hidden until the view moves on.
        message.textContent = t[problem.key];
        sentAt = progressOf(view);
        update(getView(), paying);
        return;
      }
      message.textContent = "";
      const target = payingOf(view);
      alert.textContent = format(t[problem.key], { network: target.network, token: target.token, ...problem.values });
    } finally {
      busy = false;
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  });

  // Some wallets inject their provider after the page has loaded.
  window.addEventListener("ethereum#initialized", () => update(getView(), paying), { once: true });
  return { update };
}
