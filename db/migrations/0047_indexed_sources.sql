CREATE TABLE "indexed_sources" (
	"chain_id" text PRIMARY KEY NOT NULL,
	"schema" text NOT NULL,
	"since" timestamp with time zone DEFAULT now() NOT NULL
);
