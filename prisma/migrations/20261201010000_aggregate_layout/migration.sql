-- A destination may take every report metric in its daily aggregate files, after the interface's columns.

-- CreateEnum
CREATE TYPE "AggregateLayout" AS ENUM ('interface', 'extended');

-- AlterTable
ALTER TABLE "export_destinations" ADD COLUMN     "aggregate_layout" "AggregateLayout" NOT NULL DEFAULT 'interface';
