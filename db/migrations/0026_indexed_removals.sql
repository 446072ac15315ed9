CREATE TABLE "indexed_removals" (
	"chain_id" text PRIMARY KEY NOT NULL,
	"checkpoint" text NOT NULL,
	"noted_at" timestamp with time zone DEFAULT now() NOT NULL
);
