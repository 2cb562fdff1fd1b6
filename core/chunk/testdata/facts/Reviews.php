<?php

declare(strict_types=1);

namespace Shop\Reviews;

use Illuminate\Support\Facades\Route;
use Symfony\Component\Routing\Attribute\Route as SymfonyRoute;

class Kernel
{
    private string $booksUrl;

    public function configure(): void
    {
        $this->booksUrl = getenv('BOOKS_URL') ?: 'http://books:8080';
        $dsn = getenv('PDO_URL') ?: 'mysql:host=reviewsdb;dbname=reviews;charset=utf8mb4';
        $this->pdo = new \PDO($dsn, 'reviews', getenv('DB_PASSWORD'));
    }

    public function book(string $isbn): ?array
    {
        $curl = curl_init("{$this->booksUrl}/books/$isbn");
        $data = curl_exec($curl);
        return json_decode((string) $data, true);
    }

    #[SymfonyRoute('/reviews/{isbn}', methods: ['GET'])]
    public function list(string $isbn): array
    {
        return [];
    }
}

Route::post('/reviews/{isbn}', [ReviewController::class, 'store']);
