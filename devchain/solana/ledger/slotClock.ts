import type { Commitment } from "./commitment.ts";

/** One produced slot. Every slot holds a block here (no skipped slots), so block height equals slot. */
export interface Block {
  slot: number;
  parentSlot: number;
  blockhash: string;
  previousBlockhash: string;
  /** Wall-clock seconds when the slot was produced. */
  blockTime: number;
  blockHeight: number;
  signatures: string[];
}

export interface SlotClockOptions {
  /** Slots between a slot being processed and it being finalized (≥ 1). */
  finalityDepth: number;
  /** How many slots a blockhash stays usable for (a real node: 150). */
  blockhashValiditySlots: number;
}

/**
 * The chain's slots and their blockhashes. The newest slot (`tip`) is the one being
 * filled: processed. Slots below it are confirmed; slots `finalityDepth` or more below
 * it are finalized.
 */
export class SlotClock {
  private readonly blocks: Block[] = [];
  private readonly slotByBlockhash = new Map<string, number>();

  constructor(
    readonly options: SlotClockOptions,
    genesisBlockhash: string,
  ) {
    this.append(genesisBlockhash);
  }

  get tip(): number {
    return this.blocks.length - 1;
  }

  get genesisHash(): string {
    return this.blocks[0]!.blockhash;
  }

  /** Opens the next slot with the given blockhash and returns it. */
  open(blockhash: string): Block {
    const block = this.append(blockhash);
    // Only blockhashes young enough to be used are looked up; forget the one that just expired.
    const expired = this.blocks[block.slot - this.options.blockhashValiditySlots - 1];
    if (expired) this.slotByBlockhash.delete(expired.blockhash);
    return block;
  }

  slotAt(commitment: Commitment): number {
    if (commitment === "processed") return this.tip;
    if (commitment === "confirmed") return Math.max(0, this.tip - 1);
    return Math.max(0, this.tip - this.options.finalityDepth);
  }

  /** The commitment a slot has reached now. */
  commitmentOf(slot: number): Commitment {
    if (slot <= this.slotAt("finalized")) return "finalized";
    if (slot <= this.slotAt("confirmed")) return "confirmed";
    return "processed";
  }

  block(slot: number): Block | undefined {
    return this.blocks[slot];
  }

  lastValidBlockHeight(slot: number): number {
    return slot + this.options.blockhashValiditySlots;
  }

  /** Whether a transaction using this blockhash would still be accepted in the current slot. */
  isBlockhashValid(blockhash: string): boolean {
    const slot = this.slotByBlockhash.get(blockhash);
    return slot !== undefined && this.tip <= this.lastValidBlockHeight(slot);
  }

  private append(blockhash: string): Block {
    const slot = this.blocks.length;
    const parent = this.blocks[slot - 1];
    const block: Block = {
      slot,
      parentSlot: parent ? parent.slot : 0,
      blockhash,
      previousBlockhash: parent ? parent.blockhash : blockhash,
      blockTime: Math.floor(Date.now() / 1000),
      blockHeight: slot,
      signatures: [],
    };
    this.blocks.push(block);
    this.slotByBlockhash.set(blockhash, slot);
    return block;
  }
}
