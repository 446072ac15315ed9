import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The project's directory, where the files the roles read at run time live (migrations,
 * checkout assets, Ponder's config and handlers). This module sits one level below
 * it, as the bundled roles do (`dist/`, `npm run build`), so the same `..` finds it from
 * the sources and from the bundle.
 */
export const projectRoot = fileURLToPath(new URL("..", import.meta.url));

/** A path inside the project's directory. */
export const fromProjectRoot = (...parts: string[]) => join(projectRoot, ...parts);
