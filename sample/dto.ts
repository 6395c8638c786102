import { IsEmail, IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';

/** Body of POST /emails and payload of the 'send' job (validated on both sides). */
export class SendEmailDto {
  @IsEmail()
  to!: string;

  @IsString()
  @Length(1, 200)
  subject!: string;
}

/** Body of POST /reminders. */
export class ReminderDto {
  @IsEmail()
  to!: string;

  @IsInt()
  @Min(0)
  @Max(86_400_000)
  delayMs!: number;
}

/** Body of POST /exports: the caller's own id, used to cancel. */
export class ExportDto {
  @IsString()
  @Length(1, 64)
  exportId!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  delayMs?: number;
}

/** Body of POST /orders. */
export class OrderDto {
  @IsString()
  @Length(1, 64)
  orderId!: string;

  @IsInt()
  @Min(1)
  qty!: number;
}

/** Payload of the warehouse 'pick' job. */
export class PickDto {
  @IsString()
  orderId!: string;

  @IsInt()
  @Min(1)
  qty!: number;
}

export const TENANTS = ['acme', 'globex', 'initech'] as const;

/** Body of POST /reports: one report for a tenant (grouped queue, two at a time per tenant). */
export class ReportDto {
  @IsIn(TENANTS)
  tenant!: string;

  @IsString()
  @Length(1, 64)
  title!: string;
}
