CREATE TABLE "return_origins" (
	"merchant_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"origin" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "return_origins_merchant_id_mode_origin_pk" PRIMARY KEY("merchant_id","mode","origin")
);
--> statement-breakpoint
ALTER TABLE "return_origins" ADD CONSTRAINT "return_origins_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;