CREATE TABLE "refund_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"payment_id" uuid NOT NULL,
	"merchant_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"status" text NOT NULL,
	"to_address" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"reason" text,
	"requested_by" text NOT NULL,
	"authorized_by" text,
	"signature" text,
	"signer" text,
	"transfer_id" uuid,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "refund_requests" ADD CONSTRAINT "refund_requests_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refund_requests" ADD CONSTRAINT "refund_requests_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refund_requests" ADD CONSTRAINT "refund_requests_transfer_id_transfers_out_id_fk" FOREIGN KEY ("transfer_id") REFERENCES "public"."transfers_out"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "refund_requests_payment_idx" ON "refund_requests" USING btree ("payment_id","created_at");--> statement-breakpoint
CREATE INDEX "refund_requests_merchant_idx" ON "refund_requests" USING btree ("merchant_id","mode","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "refund_requests_signature_idx" ON "refund_requests" USING btree ("payment_id","signature") WHERE signature is not null;