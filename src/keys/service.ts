import { and, count, desc, eq, isNull, lt, or } from "drizzle-orm";
import type { Db } from "../db/client";
import { personalApiKeys } from "../db/schema";
import type { Principal } from "../lib/auth/principal";
import { constantTimeEqual, randomToken, sha256Hex } from "../lib/crypto";
import type { Page } from "../lib/pagination";
import { nowIso } from "../lib/time/iso";

export type PersonalApiKey = typeof personalApiKeys.$inferSelect;

/**
 * The projects a stored key may reach; null = every project. An empty list means every project,
 * as PostHog reads `scoped_teams: []` (keys created with `[]` before that rule were stored as such).
 */
export const scopedProjectsOf = (key: PersonalApiKey): number[] | null =>
  key.scopedProjects?.length ? key.scopedProjects : null;

/** `last_used_at` is written at most this often per key, so hot paths do not write on every request. */
const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

export const maskKey = (plaintext: string) => `${plaintext.slice(0, 4)}...${plaintext.slice(-4)}`;

let rootHash: { key: string; hash: Promise<string> } | undefined;
const hashOfRootKey = (rootKey: string) => {
  if (rootHash?.key !== rootKey) rootHash = { key: rootKey, hash: sha256Hex(rootKey) };
  return rootHash.hash;
};

/** Resolves a bearer secret to the root principal or a stored personal key (looked up by hash). */
export async function authenticateKey(db: Db, rootKey: string, secret: string): Promise<Principal | undefined> {
  const hash = await sha256Hex(secret);
  if (rootKey && constantTimeEqual(hash, await hashOfRootKey(rootKey))) return { kind: "root", label: "root" };
  const key = await db.select().from(personalApiKeys).where(eq(personalApiKeys.secureValue, hash)).get();
  if (!key) return undefined;
  return {
    kind: "personal_api_key",
    keyId: key.id,
    label: key.label,
    scopes: key.scopes,
    scopedProjects: scopedProjectsOf(key),
  };
}

export async function recordKeyUse(db: Db, keyId: number): Promise<void> {
  const now = new Date();
  const threshold = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
  await db
    .update(personalApiKeys)
    .set({ lastUsedAt: now.toISOString() })
    .where(
      and(
        eq(personalApiKeys.id, keyId),
        or(isNull(personalApiKeys.lastUsedAt), lt(personalApiKeys.lastUsedAt, threshold)),
      ),
    );
}

export async function createKey(
  db: Db,
  input: { label: string; scopes: string[]; scopedProjects: number[] | null },
): Promise<{ key: PersonalApiKey; plaintext: string }> {
  const plaintext = `phx_${randomToken(47)}`;
  const key = await db
    .insert(personalApiKeys)
    .values({
      label: input.label,
      secureValue: await sha256Hex(plaintext),
      maskValue: maskKey(plaintext),
      scopes: [...new Set(input.scopes)],
      scopedProjects: input.scopedProjects,
      createdAt: nowIso(),
    })
    .returning()
    .get();
  return { key, plaintext };
}

export async function getKey(db: Db, id: number): Promise<PersonalApiKey | undefined> {
  return db.select().from(personalApiKeys).where(eq(personalApiKeys.id, id)).get();
}

export async function listKeys(db: Db, page: Page) {
  const [rows, total] = await Promise.all([
    db.select().from(personalApiKeys).orderBy(desc(personalApiKeys.id)).limit(page.limit).offset(page.offset),
    db.select({ n: count() }).from(personalApiKeys).get(),
  ]);
  return { rows, count: total?.n ?? 0 };
}

/** True when a key was deleted. */
export async function deleteKey(db: Db, id: number): Promise<boolean> {
  const deleted = await db
    .delete(personalApiKeys)
    .where(eq(personalApiKeys.id, id))
    .returning({ id: personalApiKeys.id });
  return deleted.length > 0;
}
