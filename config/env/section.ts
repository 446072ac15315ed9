import type { z } from "zod";

/**
 * One part of the environment schema: its variables and the heading they are documented
 * under (`docs/configuration.md` is generated from these, `scripts/config-docs.ts`). Each
 * variable's `.describe()` says what it does, its unit and, last, `Read by: <roles>.`; the
 * default is zod's own.
 */
export type EnvSection<S extends z.ZodRawShape = z.ZodRawShape> = { title: string; summary: string; shape: S };

export const envSection = <S extends z.ZodRawShape>(title: string, summary: string, shape: S): EnvSection<S> => ({ title, summary, shape });
